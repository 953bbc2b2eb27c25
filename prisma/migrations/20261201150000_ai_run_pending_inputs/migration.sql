-- Issue 8 (AR-7, SAN-4 pattern) ar-run: the outbox of AI runs whose workflow start is pending — the raw
-- input sealed with AES-256-GCM (never in the clear), deleted by the run's workflow once it runs.
-- CreateTable
CREATE TABLE "ai_run_pending_inputs" (
    "run_id" UUID NOT NULL,
    "key_id" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_run_pending_inputs_pkey" PRIMARY KEY ("run_id")
);
