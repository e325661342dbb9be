-- CreateTable
-- Unlogged: no WAL for an event that every instance reads within moments (a crash that empties it only drops events)
CREATE UNLOGGED TABLE "live_event" (
    "id" BIGSERIAL NOT NULL,
    "xid" BIGINT NOT NULL DEFAULT ((pg_current_xact_id())::text)::bigint,
    "payload" TEXT NOT NULL,

    CONSTRAINT "live_event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "live_event_xid_idx" ON "live_event"("xid");
