-- Row versions (issue 41): every row a client can change carries a version that every update raises,
-- which expectedVersion and If-Match compare. A constant default rewrites no table.
ALTER TABLE "organization" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "user" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "user_organization" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "user_invite" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_data_stream" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_data_stream_connection" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_data_stream_slide" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_object" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_object_instance" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_object_attribute_data" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_object_connection" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_object_relation" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_highlight_group" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "whiteboard_highlight" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "object_repository" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "library" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "library_class_conf" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "library_class_conf_attribute" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "library_class_texture" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "webhook_endpoint" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- Raised by the database, so every path raises it (Prisma, the one-statement writes, reorders,
-- imports) and none can set it: a write that names the column is overruled. The body is an escaped
-- string with \073 for the semicolon: @prisma/adapter-pg runs a migration split at every semicolon.
CREATE FUNCTION raise_version() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  NEW.version := OLD.version + 1\073
  RETURN NEW\073
END
';

CREATE TRIGGER "organization_version" BEFORE UPDATE ON "organization" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "user_version" BEFORE UPDATE ON "user" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "user_organization_version" BEFORE UPDATE ON "user_organization" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "user_invite_version" BEFORE UPDATE ON "user_invite" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_version" BEFORE UPDATE ON "whiteboard" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_data_stream_version" BEFORE UPDATE ON "whiteboard_data_stream" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_data_stream_connection_version" BEFORE UPDATE ON "whiteboard_data_stream_connection" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_data_stream_slide_version" BEFORE UPDATE ON "whiteboard_data_stream_slide" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_object_version" BEFORE UPDATE ON "whiteboard_object" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_object_instance_version" BEFORE UPDATE ON "whiteboard_object_instance" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_object_attribute_data_version" BEFORE UPDATE ON "whiteboard_object_attribute_data" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_object_connection_version" BEFORE UPDATE ON "whiteboard_object_connection" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_object_relation_version" BEFORE UPDATE ON "whiteboard_object_relation" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_highlight_group_version" BEFORE UPDATE ON "whiteboard_highlight_group" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "whiteboard_highlight_version" BEFORE UPDATE ON "whiteboard_highlight" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "object_repository_version" BEFORE UPDATE ON "object_repository" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "library_version" BEFORE UPDATE ON "library" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "library_class_conf_version" BEFORE UPDATE ON "library_class_conf" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "library_class_conf_attribute_version" BEFORE UPDATE ON "library_class_conf_attribute" FOR EACH ROW EXECUTE FUNCTION raise_version();
CREATE TRIGGER "library_class_texture_version" BEFORE UPDATE ON "library_class_texture" FOR EACH ROW EXECUTE FUNCTION raise_version();
-- The webhook feed moves an endpoint's cursor after every read: only the settings a client writes raise it.
CREATE TRIGGER "webhook_endpoint_version" BEFORE UPDATE OF "url", "description", "event_types", "whiteboard_ids", "enabled", "disabled_reason", "secret", "previous_secret", "previous_secret_expires_at" ON "webhook_endpoint" FOR EACH ROW EXECUTE FUNCTION raise_version();
