-- Row-level security, a second lock behind the tenancy every query carries: with ROW_LEVEL_SECURITY
-- on, the gateway sets `gateway.organizations` (the caller's organizations, as an integer array, empty
-- for a platform admin, who sees all) and `gateway.user` (the caller) for the statements of a read,
-- and PostgreSQL itself keeps every other organization's rows out of them. Unset, as for migrations,
-- key lookups, writes and the command line, every row passes. FORCE makes the policies hold for the
-- tables' owner too, a superuser or a BYPASSRLS role passes them all the same (the gateway refuses to
-- start so with the switch on). Each policy reaches the organization as organizationPath in
-- src/auth/tenancy.ts does, test/row-level-security.test.ts holds the two equal.
CREATE FUNCTION gateway_sees_organization(integer) RETURNS boolean LANGUAGE sql STABLE AS 'SELECT CASE WHEN coalesce(current_setting(''gateway.organizations'', true), '''') = '''' THEN true ELSE $1 = ANY (current_setting(''gateway.organizations'', true)::integer[]) END';

CREATE FUNCTION gateway_is_caller(integer) RETURNS boolean LANGUAGE sql STABLE AS 'SELECT CASE WHEN coalesce(current_setting(''gateway.user'', true), '''') = '''' THEN true ELSE $1 = current_setting(''gateway.user'', true)::integer END';

CREATE FUNCTION gateway_sees_user(integer) RETURNS boolean LANGUAGE sql STABLE AS 'SELECT CASE WHEN coalesce(current_setting(''gateway.organizations'', true), '''') = '''' THEN true ELSE gateway_is_caller($1) OR EXISTS (SELECT 1 FROM "user_organization" m WHERE m."user_id" = $1 AND gateway_sees_organization(m."organization_id")) END';

ALTER TABLE "user" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "user" USING (gateway_sees_user("user"."id"));

ALTER TABLE "api_key" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "api_key" USING (gateway_is_caller("api_key"."user_id"));

ALTER TABLE "organization" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "organization" USING (gateway_sees_organization("organization"."id"));

ALTER TABLE "user_organization" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "user_organization" USING (gateway_sees_organization("user_organization"."organization_id"));

ALTER TABLE "user_invite" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "user_invite" USING (gateway_sees_organization("user_invite"."organization_id"));

ALTER TABLE "user_action_log" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "user_action_log" USING (gateway_sees_organization("user_action_log"."organization_id"));

ALTER TABLE "file" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "file" USING (gateway_sees_organization("file"."organization_id"));

ALTER TABLE "whiteboard" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard" USING (gateway_sees_organization("whiteboard"."organization_id"));

ALTER TABLE "whiteboard_data_stream" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_data_stream" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "whiteboard" p1 WHERE p1."id" = "whiteboard_data_stream"."whiteboard_id")));

ALTER TABLE "whiteboard_data_stream_connection" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_data_stream_connection" USING (gateway_sees_organization((SELECT p2."organization_id" FROM "whiteboard_data_stream" p1 JOIN "whiteboard" p2 ON p2."id" = p1."whiteboard_id" WHERE p1."id" = "whiteboard_data_stream_connection"."data_stream_id")));

ALTER TABLE "whiteboard_data_stream_slide" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_data_stream_slide" USING (gateway_sees_organization((SELECT p2."organization_id" FROM "whiteboard_data_stream" p1 JOIN "whiteboard" p2 ON p2."id" = p1."whiteboard_id" WHERE p1."id" = "whiteboard_data_stream_slide"."data_stream_id")));

ALTER TABLE "whiteboard_object" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_object" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "whiteboard" p1 WHERE p1."id" = "whiteboard_object"."whiteboard_id")));

ALTER TABLE "whiteboard_object_instance" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_object_instance" USING (gateway_sees_organization((SELECT p2."organization_id" FROM "whiteboard_object" p1 JOIN "whiteboard" p2 ON p2."id" = p1."whiteboard_id" WHERE p1."id" = "whiteboard_object_instance"."object_id")));

ALTER TABLE "whiteboard_object_attribute_data" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_object_attribute_data" USING (gateway_sees_organization((SELECT p2."organization_id" FROM "whiteboard_object" p1 JOIN "whiteboard" p2 ON p2."id" = p1."whiteboard_id" WHERE p1."id" = "whiteboard_object_attribute_data"."object_id")));

ALTER TABLE "whiteboard_object_connection" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_object_connection" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "whiteboard" p1 WHERE p1."id" = "whiteboard_object_connection"."whiteboard_id")));

ALTER TABLE "whiteboard_object_relation" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_object_relation" USING (gateway_sees_organization((SELECT p2."organization_id" FROM "whiteboard_object" p1 JOIN "whiteboard" p2 ON p2."id" = p1."whiteboard_id" WHERE p1."id" = "whiteboard_object_relation"."parent_object_id")));

ALTER TABLE "whiteboard_highlight_group" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_highlight_group" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "whiteboard" p1 WHERE p1."id" = "whiteboard_highlight_group"."whiteboard_id")));

ALTER TABLE "whiteboard_highlight" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "whiteboard_highlight" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "whiteboard" p1 WHERE p1."id" = "whiteboard_highlight"."whiteboard_id")));

ALTER TABLE "object_repository" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "object_repository" USING (gateway_sees_organization("object_repository"."organization_id"));

ALTER TABLE "library" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "library" USING (gateway_sees_organization("library"."organization_id"));

ALTER TABLE "library_class_conf" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "library_class_conf" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "library" p1 WHERE p1."id" = "library_class_conf"."library_id")));

ALTER TABLE "library_class_conf_attribute" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "library_class_conf_attribute" USING (gateway_sees_organization((SELECT p2."organization_id" FROM "library_class_conf" p1 JOIN "library" p2 ON p2."id" = p1."library_id" WHERE p1."id" = "library_class_conf_attribute"."class_conf_id")));

ALTER TABLE "library_class_texture" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "library_class_texture" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "library" p1 WHERE p1."id" = "library_class_texture"."library_id")));

