-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "JobType" AS ENUM ('CARD_ANALYSIS', 'SCRAP_REFINE', 'TIL_GENERATION', 'TIL_GITHUB_COMMIT', 'RECALL_QUIZ_GENERATION', 'GITHUB_STAR_RECOMMENDATION');

-- CreateEnum
CREATE TYPE "JobStatus" AS ENUM ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED');

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL DEFAULT 'UTC',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "label" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scraps" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "content" TEXT NOT NULL,
    "content_hash" CHAR(64) NOT NULL,
    "source_url" TEXT,
    "title" TEXT,
    "refined_content" TEXT,
    "refined_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scraps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "async_jobs" (
    "job_id" UUID NOT NULL,
    "job_type" "JobType" NOT NULL,
    "target_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "status" "JobStatus" NOT NULL DEFAULT 'PENDING',
    "error_message" TEXT,
    "retry_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "async_jobs_pkey" PRIMARY KEY ("job_id")
);

-- CreateTable
CREATE TABLE "categories" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "categories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tags" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_cards" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "scrap_id" UUID NOT NULL,
    "category_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "embedding" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_cards_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_card_tags" (
    "card_id" UUID NOT NULL,
    "tag_id" UUID NOT NULL,

    CONSTRAINT "knowledge_card_tags_pkey" PRIMARY KEY ("card_id","tag_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_name_key" ON "users"("name");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "scraps_user_id_created_at_idx" ON "scraps"("user_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "scraps_user_id_content_hash_key" ON "scraps"("user_id", "content_hash");

-- CreateIndex
CREATE INDEX "async_jobs_status_created_at_idx" ON "async_jobs"("status", "created_at");

-- CreateIndex
CREATE INDEX "async_jobs_target_id_job_type_idx" ON "async_jobs"("target_id", "job_type");

-- CreateIndex
CREATE UNIQUE INDEX "categories_name_key" ON "categories"("name");

-- CreateIndex
CREATE UNIQUE INDEX "tags_name_key" ON "tags"("name");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_cards_scrap_id_key" ON "knowledge_cards"("scrap_id");

-- CreateIndex
CREATE INDEX "knowledge_cards_user_id_created_at_idx" ON "knowledge_cards"("user_id", "created_at");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_cards" ADD CONSTRAINT "knowledge_cards_scrap_id_fkey" FOREIGN KEY ("scrap_id") REFERENCES "scraps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_cards" ADD CONSTRAINT "knowledge_cards_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "categories"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_card_tags" ADD CONSTRAINT "knowledge_card_tags_card_id_fkey" FOREIGN KEY ("card_id") REFERENCES "knowledge_cards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_card_tags" ADD CONSTRAINT "knowledge_card_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- SAN-2: at most one active (PENDING or PROCESSING) job per (target_id, job_type).
CREATE UNIQUE INDEX "async_jobs_one_active_per_target"
  ON "async_jobs" ("target_id", "job_type")
  WHERE "status" IN ('PENDING', 'PROCESSING');

-- SAN-7: pgvector is optional. Where the extension is available (PGlite, the docker-compose
-- image) knowledge_cards also gets a vector(1536) column, scanned exactly (no ANN index, so the
-- per-user ranking equals the bytea scoring used where pgvector is absent).
-- Prisma's driver-adapter migration runner splits scripts on every semicolon, even inside a
-- dollar-quoted body, so the block below is one E'' literal with its semicolons written as \073.
DO E'
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = ''vector'') THEN
    CREATE EXTENSION IF NOT EXISTS vector\073
    EXECUTE ''ALTER TABLE "knowledge_cards" ADD COLUMN "embedding_vec" vector(1536)''\073
  END IF\073
END';
