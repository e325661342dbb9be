SELECT "t0"."id", "t0"."organization_id" AS "organizationId" FROM "public"."webhook_endpoint" AS "t0" WHERE ("t0"."id" = $1 AND "t0"."organization_id" IN ($2)) LIMIT $3;
