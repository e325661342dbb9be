-- CreateEnum
CREATE TYPE "credential_kind" AS ENUM ('API_KEY', 'BEARER_TOKEN');

-- AlterTable
ALTER TABLE "user_action_log" ADD COLUMN     "credential" "credential_kind";

-- CreateTable
CREATE TABLE "user_identity" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "revoked_at" TIMESTAMP(3),
    "last_used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_identity_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "user_identity_user_id_idx" ON "user_identity"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_identity_issuer_subject_key" ON "user_identity"("issuer", "subject");

-- AddForeignKey
ALTER TABLE "user_identity" ADD CONSTRAINT "user_identity_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand: a revoked, moved or deleted identity is announced on principal_changed as a key's
-- revocation is (migration principal_change_notifications), so every gateway process forgets the
-- user's cached token principals when the change commits.
CREATE TRIGGER "user_identity_principal_change" AFTER UPDATE OF "revoked_at", "user_id" OR DELETE ON "user_identity"
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change('user_id');
