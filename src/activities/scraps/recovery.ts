/**
 * SAN-6 recovery rules 3 and 4 of the knowledge-scrap family, on the `jobs` task queue: scraps
 * missing a knowledge card or a refinement get a new job. Bounded batches; every write is an
 * idempotent enqueue by the SAN-2 index, so a retried activity or two runs at once enqueue once.
 */
import { log as activityLog } from '@temporalio/activity';
import { Prisma, type PrismaClient } from '@prisma/client';
import type { JobType } from '../../core/contracts';
import { enqueueIfNoneActive } from '../../core/projection';
import type { JobStarter } from '../../core/starter';
import { itemOf, newReport, record, startJob, type RecoveryAction, type RecoveryReport } from '../core/recovery';

/** Dependencies of the SAN recovery activities. */
export interface SanRecoveryDeps {
  db: PrismaClient;
  starter: JobStarter;
}

/** Builds the SAN-6 rule 3 and 4 activities (registered on the `jobs` worker). */
export function createSanRecoveryActivities({ db, starter }: SanRecoveryDeps) {
  /**
   * Scraps missing a card / a refinement, with no active job of `jobType` and whose latest job of
   * that type is not FAILED (FAILED ones belong to the bounded retry rule, so a poison scrap is not
   * re-run forever), get a new PENDING job, then its workflow.
   */
  async function enqueueForScraps(rule: string, jobType: JobType, missing: Prisma.Sql, batchSize: number): Promise<RecoveryReport> {
    const scraps = await db.$queryRaw<{ id: string; user_id: string }[]>`
      SELECT s.id, s.user_id FROM scraps s
       WHERE ${missing}
         AND NOT EXISTS (SELECT 1 FROM async_jobs j
                          WHERE j.target_id = s.id AND j.job_type = ${jobType}::"JobType"
                            AND j.status IN ('PENDING', 'PROCESSING', 'FAILED')
                            AND NOT EXISTS (SELECT 1 FROM async_jobs n
                                             WHERE n.target_id = j.target_id AND n.job_type = j.job_type
                                               AND n.created_at > j.created_at))
       ORDER BY s.created_at
       LIMIT ${batchSize}`;
    const report = newReport(rule);
    for (const s of scraps) {
      const { job, created } = await enqueueIfNoneActive(db, { jobType, targetId: s.id, userId: s.user_id });
      const actions: RecoveryAction[] = [created ? 'enqueued' : 'already-active'];
      if (created) await startJob(starter, job, actions);
      record(report, itemOf(job, actions));
    }
    activityLog.info('recovery pass', { rule, examined: report.examined, counts: report.counts });
    return report;
  }

  return {
    /**
     * SAN-6 rule 3: scraps with no knowledge card and no active CARD_ANALYSIS get one.
     * Idempotency: enqueue by the SAN-2 index. Retryable.
     */
    async enqueueMissingCardAnalyses(args: { batchSize: number }): Promise<RecoveryReport> {
      const missing = Prisma.sql`NOT EXISTS (SELECT 1 FROM knowledge_cards c WHERE c.scrap_id = s.id)`;
      return enqueueForScraps('missing-cards', 'CARD_ANALYSIS', missing, args.batchSize);
    },

    /**
     * SAN-6 rule 4: scraps never refined (refined_at null) and no active SCRAP_REFINE get one.
     * Idempotency: enqueue by the SAN-2 index. Retryable.
     */
    async enqueueMissingRefinements(args: { batchSize: number }): Promise<RecoveryReport> {
      return enqueueForScraps('unrefined-scraps', 'SCRAP_REFINE', Prisma.sql`s.refined_at IS NULL`, args.batchSize);
    },
  };
}

/** Type of the SAN recovery activities, for `proxyActivities` in workflows. */
export type SanRecoveryActivities = ReturnType<typeof createSanRecoveryActivities>;
