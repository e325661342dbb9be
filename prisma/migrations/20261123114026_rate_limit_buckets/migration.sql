-- CreateTable
-- Unlogged: buckets are state that refills by itself, so no WAL is written for every report (a crash only refills them).
CREATE UNLOGGED TABLE "rate_limit_bucket" (
    "key" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "rate_limit_bucket_pkey" PRIMARY KEY ("key")
);
