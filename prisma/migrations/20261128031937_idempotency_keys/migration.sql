-- Idempotency keys (src/http/idempotency.ts): a keyed request's first answer, and which of its changes
-- committed, so a retry answers once and never makes a change twice.

-- Null for every change of a request without a key: those entries cost nothing more.
ALTER TABLE "user_action_log" ADD COLUMN     "request_id" BIGINT,
ADD COLUMN     "request_step" INTEGER;

-- Partial: only keyed requests' entries are indexed, so an unkeyed write touches no index more.
CREATE INDEX "user_action_log_request_id_idx" ON "user_action_log"("request_id", "request_step") WHERE "request_id" IS NOT NULL;

-- No foreign keys: a key names its caller by text and outlives nothing.
CREATE TABLE "idempotency_key" (
    "id" BIGSERIAL NOT NULL,
    "caller" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'RUNNING',
    "result" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "lease_until" TIMESTAMP(3) NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "idempotency_key_pkey" PRIMARY KEY ("caller","key")
);

CREATE UNIQUE INDEX "idempotency_key_id_key" ON "idempotency_key"("id");

-- Retention deletes the expired keys oldest first.
CREATE INDEX "idempotency_key_expires_at_idx" ON "idempotency_key"("expires_at");
