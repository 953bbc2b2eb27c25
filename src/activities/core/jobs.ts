/**
 * Projection activities on the `jobs` task queue (SAN-1, SAN-4, SAN-7, SAN-8, DC-3). Every write is
 * idempotent by key and records the job's completion in the same transaction as its result, so a
 * retried activity never duplicates a card, a tag or a category.
 */
import { ApplicationFailure, log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import type { CardAnalysis } from '../../ai/types';
import { encodeEmbedding } from '../../db/vectors';
import { storeCardVector } from '../../services/san/similarity';
import { transitionJob } from '../../core/projection';
import type { JobStarter } from '../../core/starter';
import type { JobStatus } from '../../core/contracts';

/** Dependencies of the projection activities. */
export interface JobActivityDeps {
  db: PrismaClient;
  starter: JobStarter;
}

/** Result of {@link JobActivities.beginJob}: `proceed` false when the row is already terminal. */
export interface BeginResult {
  proceed: boolean;
  status: JobStatus;
}

/** Result of a reconciliation pass. */
export interface ReconcileReport {
  examined: number;
  started: number;
  alreadyRunning: number;
  failedToStart: number;
}

/** Builds the `jobs` task-queue activities. */
export function createJobActivities({ db, starter }: JobActivityDeps) {
  async function completeWith<T>(jobId: string, fn: (tx: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0]) => Promise<T>): Promise<T> {
    return db.$transaction(async (tx) => {
      const value = await fn(tx);
      await transitionJob(tx, jobId, 'COMPLETED');
      return value;
    });
  }

  return {
    /**
     * SAN-4: PENDING → PROCESSING. PROCESSING again (retry, replay) proceeds; a terminal row means
     * a late duplicate start and the workflow stops. Retryable; non-retryable JOB_NOT_FOUND.
     */
    async beginJob(jobId: string): Promise<BeginResult> {
      const r = await transitionJob(db, jobId, 'PROCESSING');
      if (r.status === null) throw ApplicationFailure.nonRetryable(`job ${jobId} not found`, 'JOB_NOT_FOUND');
      activityLog.info('job begin', { jobId, status: r.status, changed: r.changed });
      return { proceed: r.status === 'PROCESSING', status: r.status };
    },

    /** SAN-4: PENDING|PROCESSING → FAILED with the cause chain; a no-op on a terminal row. */
    async failJob(jobId: string, errorMessage: string): Promise<JobStatus | null> {
      const r = await transitionJob(db, jobId, 'FAILED', errorMessage);
      activityLog.warn('job failed', { jobId, changed: r.changed, errorMessage });
      return r.status;
    },

    /**
     * SAN-7: stores the knowledge card of `scrapId` (find-or-create category and tags, one card per
     * scrap, vector column when pgvector is present) and completes the job, in one transaction.
     * Idempotency key: scrapId. Returns the card id.
     */
    async storeCard(args: { jobId: string; scrapId: string; userId: string; analysis: CardAnalysis }): Promise<string> {
      const { jobId, scrapId, userId, analysis } = args;
      const tagNames = [...new Set(analysis.tags)];
      const cardId = await completeWith(jobId, async (tx) => {
        await tx.category.createMany({ data: [{ name: analysis.category }], skipDuplicates: true });
        const category = await tx.category.findUniqueOrThrow({ where: { name: analysis.category } });
        await tx.knowledgeCard.createMany({
          data: [{
            userId, scrapId, categoryId: category.id, title: analysis.title, summary: analysis.summary,
            embedding: new Uint8Array(encodeEmbedding(analysis.embedding)),
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
      await completeWith(args.jobId, (tx) =>
        tx.scrap.update({ where: { id: args.scrapId }, data: { refinedContent: args.refinedContent, refinedAt: new Date() } }),
      );
      activityLog.info('scrap refined', { jobId: args.jobId, scrapId: args.scrapId });
    },

    /**
     * SAN-4 durability: starts the workflow of every PENDING job older than `graceSeconds` (the API
     * committed it but died before starting it). Starting is idempotent by workflow ID, and the
     * workflow skips a row that is no longer active. Returns counts.
     */
    async startStalePendingJobs(args: { graceSeconds: number; limit: number }): Promise<ReconcileReport> {
      const cutoff = new Date(Date.now() - args.graceSeconds * 1000);
      const rows = await db.asyncJob.findMany({
        where: { status: 'PENDING', createdAt: { lte: cutoff } },
        orderBy: { createdAt: 'asc' },
        take: args.limit,
      });
      const report: ReconcileReport = { examined: rows.length, started: 0, alreadyRunning: 0, failedToStart: 0 };
      for (const row of rows) {
        try {
          const outcome = await starter.start(row);
          if (outcome === 'started') report.started += 1;
          else report.alreadyRunning += 1;
        } catch (err) {
          report.failedToStart += 1;
          activityLog.warn('reconcile start failed', { jobId: row.jobId, error: String(err) });
        }
      }
      activityLog.info('reconcile pass', { ...report });
      return report;
    },
  };
}

/** Type of the `jobs` activities, for `proxyActivities` in workflows. */
export type JobActivities = ReturnType<typeof createJobActivities>;
