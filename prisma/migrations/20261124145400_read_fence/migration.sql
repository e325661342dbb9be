-- CreateTable
-- Unlogged: a write per mutation with no WAL and no flush. A crash empties it, and the floor (user 0) is taken again.
CREATE UNLOGGED TABLE "read_fence" (
    "user_id" INTEGER NOT NULL,
    "lsn" BIGINT NOT NULL,

    CONSTRAINT "read_fence_pkey" PRIMARY KEY ("user_id")
);
