-- The action log becomes the change log (src/live/log.ts): one logged entry per committed change,
-- which subscribers, resuming clients and webhooks read by position. It replaces the unlogged outbox.

-- No foreign keys: an audit trail outlives its actor, and a write locks no user or organization row.
ALTER TABLE "user_action_log" DROP CONSTRAINT "user_action_log_user_id_fkey";
ALTER TABLE "user_action_log" DROP CONSTRAINT "user_action_log_organization_id_fkey";

-- Added without a default, then given one: a volatile default would rewrite every existing entry.
ALTER TABLE "user_action_log" ADD COLUMN "xid" BIGINT,
ADD COLUMN "kind" TEXT,
ADD COLUMN "whiteboard_id" INTEGER,
ADD COLUMN "row_ids" INTEGER[];
ALTER TABLE "user_action_log" ALTER COLUMN "xid" SET DEFAULT ((pg_current_xact_id())::text)::bigint;

CREATE INDEX "user_action_log_xid_idx" ON "user_action_log"("xid");
CREATE INDEX "user_action_log_organization_id_xid_idx" ON "user_action_log"("organization_id", "xid");
CREATE INDEX "user_action_log_whiteboard_id_xid_idx" ON "user_action_log"("whiteboard_id", "xid");

DROP TABLE "live_event";

-- One row, made here: its identity names this database in every cursor.
CREATE TABLE "change_log_state" (
    "identity" UUID NOT NULL DEFAULT gen_random_uuid(),
    "pruned_xid" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "change_log_state_pkey" PRIMARY KEY ("identity")
);
INSERT INTO "change_log_state" DEFAULT VALUES;
