SELECT ((SELECT json_build_object('value', r0."in_the_archive") FROM "whiteboard" r0 WHERE r0."id" = $1::int AND r0."organization_id" = ANY($2::int[])))::text AS c0;
