/**
 * SAN-7/SAN-8 projection activities on the `jobs` task queue: the knowledge card and the refined
 * content, each stored with the job's COMPLETED in one transaction. Idempotent by scrap id, so a
 * retried activity never duplicates a card, a tag or a category.
 */
import { log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import type { CardAnalysis } from '../../ai/types';
import { LOCAL_EMBEDDING_MODEL } from '../../ai/embedding-models';
import { encodeEmbedding } from '../../db/vectors';
import { storeCardVector } from '../../services/san/similarity';
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
     * scrap, vector column when pgvector is present) and completes the job, in one transaction.
     * Idempotency key: scrapId. Returns the card id.
     */
    async storeCard(args: { jobId: string; scrapId: string; userId: string; analysis: CardAnalysis }): Promise<string> {
      const { jobId, scrapId, userId, analysis } = args;
      const tagNames = [...new Set(analysis.tags)];
      const cardId = await completeWith(db, jobId, async (tx) => {
        await tx.category.createMany({ data: [{ name: analysis.category }], skipDuplicates: true });
        const category = await tx.category.findUniqueOrThrow({ where: { name: analysis.category } });
        await tx.knowledgeCard.createMany({
          data: [{
            userId, scrapId, categoryId: category.id, title: analysis.title, summary: analysis.summary,
            embedding: new Uint8Array(encodeEmbedding(analysis.embedding)),
            embeddingModel: analysis.embeddingModel ?? LOCAL_EMBEDDING_MODEL,
          }],
          skipDuplicates: true,
        });
        const card = await tx.knowledgeCard.findUniqueOrThrow({ where: { scrapId }, select: { id: true } });
        await tx.tag.createMany({ data: tagNames.map((name) => ({ name })), skipDuplicates: true });
        const tags = await tx.tag.findMany({ where: { name: { in: tagNames } }, select: { id: true } });
        await tx.knowledgeCardTag.createMany({ data: tags.map((t) => ({ cardId: card.id, tagId: t.id })), skipDuplicates: true });
        await storeCardVector(tx, card.id, analysis.embedding);
        return card.id;
      });
      activityLog.info('card stored', { jobId, scrapId, cardId });
      return cardId;
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
