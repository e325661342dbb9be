SELECT (SELECT '{"value":' || "r0"."in_the_archive"::text || '}' FROM "whiteboard" "r0" WHERE "r0"."id" = $1::int AND "r0"."organization_id" = ANY($2::int[])) AS "c0";
