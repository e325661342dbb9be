SELECT "t0"."id", "t0"."name" FROM "public"."rate" AS "t0" ORDER BY "t0"."id" ASC;
