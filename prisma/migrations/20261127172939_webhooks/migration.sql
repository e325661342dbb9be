-- CreateEnum
CREATE TYPE "webhook_delivery_state" AS ENUM ('PENDING', 'DELIVERED', 'DEAD');

-- CreateEnum
CREATE TYPE "webhook_disabled_reason" AS ENUM ('ADMINISTRATOR', 'GONE');

-- CreateTable
CREATE TABLE "webhook_endpoint" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "event_types" TEXT[],
    "whiteboard_ids" INTEGER[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" "webhook_disabled_reason",
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "cursor" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "webhook_endpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery" (
    "id" BIGSERIAL NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "message_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "lane" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "state" "webhook_delivery_state" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leased_until" TIMESTAMPTZ(3),
    "retry_since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_status" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoint_organization_id_idx" ON "webhook_endpoint"("organization_id");

-- CreateIndex
CREATE INDEX "webhook_delivery_endpoint_id_state_lane_id_idx" ON "webhook_delivery"("endpoint_id", "state", "lane", "id");

-- CreateIndex
CREATE INDEX "webhook_delivery_endpoint_id_id_idx" ON "webhook_delivery"("endpoint_id", "id");

-- CreateIndex
CREATE INDEX "webhook_delivery_state_next_attempt_at_idx" ON "webhook_delivery"("state", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "webhook_endpoint_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery" ADD CONSTRAINT "webhook_delivery_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Row-level security (see 20261124160000_row_level_security): an endpoint belongs to an organization,
-- a delivery to an endpoint. Reading them takes the role of an administrator besides
-- (src/auth/tenancy.ts), which the tenancy of each statement holds: the policies keep every other
-- organization out. (The engine splits this file at every semicolon, comments included.)
ALTER TABLE "webhook_endpoint" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "webhook_endpoint" USING (gateway_sees_organization("webhook_endpoint"."organization_id"));

ALTER TABLE "webhook_delivery" ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY "tenancy" ON "webhook_delivery" USING (gateway_sees_organization((SELECT p1."organization_id" FROM "webhook_endpoint" p1 WHERE p1."id" = "webhook_delivery"."endpoint_id")));
