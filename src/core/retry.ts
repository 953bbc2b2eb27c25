/**
 * SAN-6 re-enqueue of a FAILED job: the recovery edge FAILED → PENDING with retry_count + 1, shared
 * by the recovery schedules and `POST /async-jobs/{jobId}/retry`, so both count toward the same
 * limit. One guarded UPDATE decides it, so concurrent retries of one job re-enqueue it once.
 * Targets with a status of their own follow in the same transaction (recall_quiz_generations
 * mirrors its job, DC-3); a TIL_GITHUB_COMMIT job is re-runnable only while its til_github_commits
 * row is live, since that row never leaves FAILED (SAN-10: a new request makes a new commit).
 */
import { Prisma, type AsyncJob, type PrismaClient } from '@prisma/client';
import { retryDecision } from './job-state';
import { mirrorJobTarget } from '../services/san/generation-status';

/**
 * Outcome of {@link requeueFailedJob}:
 * - `requeued`: the row is PENDING again with retry_count + 1; start its workflow next.
 * - `not-failed`: the row is not FAILED (already re-enqueued, running or completed).
 * - `limit-reached`: retry_count already equals the limit.
 * - `superseded`: another job for the same (target, type) is active or newer (SAN-2: re-enqueue
 *   never makes a second active job, and only the latest job of a target is retried).
 * - `target-closed`: a TIL_GITHUB_COMMIT whose commit row is FAILED (or gone); request a new commit.
 * - `not-found`: no such row.
 */
export type RequeueResult =
  | { outcome: 'requeued'; job: AsyncJob }
  | { outcome: 'not-failed' | 'limit-reached' | 'target-closed'; job: AsyncJob }
  | { outcome: 'superseded'; job: AsyncJob; supersededBy: string }
  | { outcome: 'not-found' };

function isUniqueViolation(err: unknown): boolean {
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (err.code === 'P2002') return true;
    const meta = JSON.stringify(err.meta ?? {});
    return err.code === 'P2010' && /23505|unique/i.test(`${meta} ${err.message}`);
  }
  return err instanceof Error && /23505|unique constraint/i.test(err.message);
}

/**
 * SAN-6: FAILED → PENDING with retry_count + 1 when retry_count < `maxRetries` and no other job of
 * the same (target, type) is active or newer. Clears error and timestamps of the previous attempt
 * (its cause chain stays in the Temporal history). Does not start the workflow.
 */
export async function requeueFailedJob(db: PrismaClient, jobId: string, maxRetries: number): Promise<RequeueResult> {
  let updated: { job_id: string }[];
  try {
    updated = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ job_id: string; job_type: AsyncJob['jobType']; target_id: string }[]>`
        UPDATE async_jobs j
           SET status = 'PENDING', retry_count = j.retry_count + 1, error_message = NULL,
               started_at = NULL, finished_at = NULL, updated_at = now()
         WHERE j.job_id = ${jobId}::uuid
           AND j.status = 'FAILED'
           AND j.retry_count < ${maxRetries}
           AND NOT EXISTS (
             SELECT 1 FROM async_jobs o
              WHERE o.target_id = j.target_id AND o.job_type = j.job_type AND o.job_id <> j.job_id
                AND (o.status IN ('PENDING', 'PROCESSING') OR o.created_at > j.created_at))
           AND (j.job_type <> 'TIL_GITHUB_COMMIT' OR EXISTS (
             SELECT 1 FROM til_github_commits c WHERE c.id = j.target_id AND c.status IN ('PENDING', 'PROCESSING')))
        RETURNING j.job_id, j.job_type, j.target_id`;
      for (const r of rows) await mirrorJobTarget(tx, { jobType: r.job_type, targetId: r.target_id }, 'PENDING');
      return rows;
    });
  } catch (err) {
    // A concurrent enqueue took the target's active slot between our check and write (SAN-2).
    if (!isUniqueViolation(err)) throw err;
    updated = [];
  }
  const job = await db.asyncJob.findUnique({ where: { jobId } });
  if (!job) return { outcome: 'not-found' };
  if (updated.length === 1) return { outcome: 'requeued', job };
  const decision = retryDecision(job, maxRetries);
  if (decision === 'not-failed') return { outcome: 'not-failed', job };
  if (decision === 'limit-reached') return { outcome: 'limit-reached', job };
  if (job.jobType === 'TIL_GITHUB_COMMIT') {
    const commit = await db.tilGithubCommit.findUnique({ where: { id: job.targetId }, select: { status: true } });
    if (!commit || commit.status === 'FAILED' || commit.status === 'COMPLETED') return { outcome: 'target-closed', job };
  }
  const other = await db.asyncJob.findFirst({
    where: {
      targetId: job.targetId,
      jobType: job.jobType,
      jobId: { not: job.jobId },
      OR: [{ status: { in: ['PENDING', 'PROCESSING'] } }, { createdAt: { gt: job.createdAt } }],
    },
    orderBy: { createdAt: 'desc' },
    select: { jobId: true },
  });
  // No competitor found: it finished between our write and read; report it as superseded anyway.
  return { outcome: 'superseded', job, supersededBy: other?.jobId ?? 'unknown' };
}
