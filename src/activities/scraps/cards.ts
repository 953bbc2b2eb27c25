/**
 * SAN-7/SAN-8 projection activities on the `jobs` task queue: the knowledge card and the refined
 * content, each stored with the job's COMPLETED in one transaction. Idempotent by scrap id, so a
 * retried activity never duplicates a card, a tag or a category.
 */
import { log as activityLog } from '@temporalio/activity';
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '@prisma/client';
import type { CardAnalysis } from '../../ai/scraps/answers';
import { LOCAL_EMBEDDING_MODEL } from '../../ai/embedding-models';
import { encodeEmbedding } from '../../db/vectors';
import { analysisEmbedding, type CardAnalysisResult } from './ai';
import { cardVectorLiteral, hasVectorColumn } from '../../services/scraps/similarity';
import { completedJobCte, countCompletion } from '../../core/projection';
import { completeWith } from '../core/jobs';

/** Dependencies of the card activities. */
export interface CardActivityDeps {
  db: PrismaClient;
}

/** Builds the SAN-7/SAN-8 `jobs` task-queue activities. */
export function createCardActivities({ db }: CardActivityDeps) {
  return {
    /**
     * SAN-7: stores the knowledge card of `scrapId` (find-or-create category and tags, one card per
     * scrap, vector column when pgvector is present) and completes the job, in ONE statement
     * (atomic, one round trip). Idempotency key: scrapId — a repeat keeps the
     * first card and completes nothing twice. Category and tag upserts lock their rows in one
     * order (category, then tags by name), so concurrent cards do not deadlock. Returns the card id.
     */
    async storeCard(args: { jobId: string; scrapId: string; userId: string; analysis: CardAnalysis | CardAnalysisResult }): Promise<string> {
      const { jobId, scrapId, userId, analysis } = args;
      const embedding = analysisEmbedding(analysis);
      const tagNames = [...new Set(analysis.tags)].sort();
      const vector = (await hasVectorColumn(db)) ? cardVectorLiteral(embedding) : undefined;
      const now = new Date();
      const rows = await db.$queryRaw<{ card_id: string; job_type: string | null; created_at: Date | null }[]>`
        WITH category AS (
          INSERT INTO categories (id, name) VALUES (${randomUUID()}::uuid, ${analysis.category})
          ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
          RETURNING id
        ), card AS (
          INSERT INTO knowledge_cards (id, user_id, scrap_id, category_id, title, summary, embedding, embedding_model${vector === undefined ? Prisma.empty : Prisma.sql`, embedding_vec`})
          SELECT ${randomUUID()}::uuid, ${userId}::uuid, ${scrapId}::uuid, category.id, ${analysis.title}, ${analysis.summary},
            ${encodeEmbedding(embedding)}, ${analysis.embeddingModel ?? LOCAL_EMBEDDING_MODEL}${vector === undefined ? Prisma.empty : Prisma.sql`, ${vector}::vector`}
          FROM category
          ON CONFLICT (scrap_id) DO UPDATE SET scrap_id = EXCLUDED.scrap_id
          RETURNING id
        ), tag AS (
          INSERT INTO tags (id, name)
          SELECT t.id, t.name FROM unnest(${tagNames.map(() => randomUUID())}::uuid[], ${tagNames}::text[]) AS t(id, name) ORDER BY t.name
          ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
          RETURNING id
        ), card_tag AS (
          INSERT INTO knowledge_card_tags (card_id, tag_id) SELECT card.id, tag.id FROM card, tag
          ON CONFLICT DO NOTHING
        ), ${completedJobCte(jobId, now)}
        SELECT (SELECT id::text FROM card) AS card_id, (SELECT job_type::text FROM completed_job) AS job_type, (SELECT created_at FROM completed_job) AS created_at`;
      const row = rows[0]!;
      await countCompletion(db, jobId, row.job_type && row.created_at ? { jobType: row.job_type, createdAt: row.created_at } : undefined, now);
      activityLog.info('card stored', { jobId, scrapId, cardId: row.card_id });
      return row.card_id;
    },

    /** SAN-8: stores refinedContent on the scrap and completes the job, in one transaction. Idempotent. */
    async storeRefinement(args: { jobId: string; scrapId: string; refinedContent: string }): Promise<void> {
      await completeWith(db, args.jobId, (tx) =>
        tx.scrap.update({ where: { id: args.scrapId }, data: { refinedContent: args.refinedContent, refinedAt: new Date() } }),
      );
      activityLog.info('scrap refined', { jobId: args.jobId, scrapId: args.scrapId });
    },

  };
}

/** Type of the card activities, for `proxyActivities` in workflows. */
export type CardActivities = ReturnType<typeof createCardActivities>;
