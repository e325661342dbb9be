-- Keys, users and memberships also change outside a gateway process (another process, the
-- `api-key` CLI, plain SQL). Each change that alters what a key may do tells every gateway process
-- whose principal to forget, on the channel `principal_changed` with the user id as payload, when
-- the change commits. Column lists keep the `last_used_at` bookkeeping from firing.
-- The body is an escaped string with \073 for the semicolon: @prisma/adapter-pg runs a migration
-- split at every semicolon, dollar quotes or not.
CREATE FUNCTION notify_principal_change() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP <> ''INSERT'' THEN
    PERFORM pg_notify(''principal_changed'', to_jsonb(OLD) ->> TG_ARGV[0])\073
  END IF\073
  IF TG_OP <> ''DELETE'' THEN
    PERFORM pg_notify(''principal_changed'', to_jsonb(NEW) ->> TG_ARGV[0])\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER "api_key_principal_change" AFTER UPDATE OF "revoked_at", "expires_at", "permission", "user_id" OR DELETE ON "api_key"
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change('user_id');

CREATE TRIGGER "user_principal_change" AFTER UPDATE OF "is_active", "is_admin", "organization_id" OR DELETE ON "user"
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change('id');

CREATE TRIGGER "user_organization_principal_change" AFTER INSERT OR UPDATE OR DELETE ON "user_organization"
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change('user_id');
