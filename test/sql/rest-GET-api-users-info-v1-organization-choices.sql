SELECT "t0"."id", "t0"."name" FROM "public"."organization" AS "t0" WHERE "t0"."id" IN ($1) ORDER BY "t0"."name" ASC, "t0"."id" ASC;
