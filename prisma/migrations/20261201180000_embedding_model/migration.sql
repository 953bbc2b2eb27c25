-- Issue 11 (SAN-7, SAN-9): the identity of the embedding model that produced each stored vector.
-- Similar cards compare only vectors of one model, and a switch of model re-embeds the old rows
-- (scripts/reembed.ts). Every vector stored before this release came from the deterministic local
-- provider (the default AI_PROVIDER), so existing rows take its identity as the column default
-- AlterTable
ALTER TABLE "daily_summaries" ADD COLUMN     "embedding_model" TEXT NOT NULL DEFAULT 'local:hash-tfidf-1536@1';

-- AlterTable
ALTER TABLE "knowledge_cards" ADD COLUMN     "embedding_model" TEXT NOT NULL DEFAULT 'local:hash-tfidf-1536@1';

-- CreateIndex
CREATE INDEX "knowledge_cards_user_id_embedding_model_idx" ON "knowledge_cards"("user_id", "embedding_model");
