/**
 * SAN-6 re-enqueue of a FAILED job: the recovery edge FAILED → PENDING with retry_count + 1, shared
 * by the recovery schedules, `POST /async-jobs/{jobId}/retry` and `retryJobWorkflow`, so all count
 * toward the same limit. One guarded UPDATE decides it, so concurrent retries of one job re-enqueue
 * it once. A target with a status of its own follows in the same transaction (its `mirror` hook,
 * DC-3), and a target whose `mayRequeue` hook says no keeps its job FAILED (`target-closed`).
 */
import { Prisma, type AsyncJob, type PrismaClient } from '@prisma/client';
import { ASYNC_JOB_STATES, retryDecision } from './job-state';
import { transitionGuard } from './guarded-transition';
import { hooksOf, type TargetHookRegistry } from './target-hooks';

/**
 * Outcome of {@link requeueFailedJob}:
 * - `requeued`: the row is PENDING again with retry_count + 1 (`previous`: the FAILED row it was);
 *   start its workflow next ({@link restoreFailedJob} when Temporal cannot take it).
 * - `not-failed`: the row is not FAILED (already re-enqueued, running or completed).
 * - `limit-reached`: retry_count already equals the limit.
 * - `superseded`: another job for the same (target, type) is active or newer (SAN-2: re-enqueue
 *   never makes a second active job, and only the latest job of a target is retried).
 * - `target-closed`: the target's `mayRequeue` hook refused (e.g. its own row is closed).
 * - `not-found`: no such row.
 */
export type RequeueResult =
  | { outcome: 'requeued'; job: AsyncJob; previous: AsyncJob }
  | { outcome: 'not-failed' | 'limit-reached'; job: AsyncJob }
  | { outcome: 'target-closed'; job: AsyncJob; hint?: string | undefined }
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

/** Thrown inside the re-enqueue transaction to roll it back when the target refuses. */
class TargetClosed extends Error {}

/**
 * SAN-6: FAILED → PENDING with retry_count + 1 when retry_count < `maxRetries`, no other job of
 * the same (target, type) is active or newer, and the target's hooks allow it. Clears error and
 * timestamps of the previous attempt (its cause chain stays in the Temporal history). Does not
 * start the workflow.
 */
export async function requeueFailedJob(
  db: PrismaClient,
  jobId: string,
  maxRetries: number,
  targets: TargetHookRegistry,
): Promise<RequeueResult> {
  let updated: { job_id: string }[];
  let previous: AsyncJob | null = null;
  let closed = false;
  const from = transitionGuard(ASYNC_JOB_STATES, 'PENDING', { actor: 'retry' });
  const active = [...ASYNC_JOB_STATES.active];
  try {
    updated = await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM async_jobs WHERE job_id = ${jobId}::uuid FOR UPDATE`;
      previous = await tx.asyncJob.findUnique({ where: { jobId } });
      const rows = await tx.$queryRaw<{ job_id: string; job_type: AsyncJob['jobType']; target_id: string }[]>`
        UPDATE async_jobs j
           SET status = 'PENDING', retry_count = j.retry_count + 1, error_message = NULL,
               started_at = NULL, finished_at = NULL, updated_at = now()
         WHERE j.job_id = ${jobId}::uuid
           AND j.status = ANY(${from}::"JobStatus"[])
           AND j.retry_count < ${maxRetries}
           AND NOT EXISTS (
             SELECT 1 FROM async_jobs o
              WHERE o.target_id = j.target_id AND o.job_type = j.job_type AND o.job_id <> j.job_id
                AND (o.status = ANY(${active}::"JobStatus"[]) OR o.created_at > j.created_at))
        RETURNING j.job_id, j.job_type, j.target_id`;
      for (const r of rows) {
        const hooks = hooksOf(targets, r.job_type);
        if (hooks.mayRequeue && !(await hooks.mayRequeue(tx, r.target_id))) throw new TargetClosed();
        await hooks.mirror?.(tx, r.target_id, 'PENDING');
      }
      return rows;
    });
  } catch (err) {
    if (err instanceof TargetClosed) closed = true;
    // A concurrent enqueue took the target's active slot between our check and write (SAN-2).
    else if (!isUniqueViolation(err)) throw err;
    updated = [];
  }
  const job = await db.asyncJob.findUnique({ where: { jobId } });
  if (!job) return { outcome: 'not-found' };
  if (updated.length === 1 && previous) return { outcome: 'requeued', job, previous };
  const decision = retryDecision(job, maxRetries);
  if (decision === 'not-failed') return { outcome: 'not-failed', job };
  if (decision === 'limit-reached') return { outcome: 'limit-reached', job };
  if (closed) return { outcome: 'target-closed', job, hint: hooksOf(targets, job.jobType).closedHint };
  const other = await db.asyncJob.findFirst({
    where: {
      targetId: job.targetId,
      jobType: job.jobType,
      jobId: { not: job.jobId },
      OR: [{ status: { in: active } }, { createdAt: { gt: job.createdAt } }],
    },
    orderBy: { createdAt: 'desc' },
    select: { jobId: true },
  });
  // No competitor found: it finished between our write and read; report it as superseded anyway.
  return { outcome: 'superseded', job, supersededBy: other?.jobId ?? 'unknown' };
}

/**
 * SAN-6 undo of a re-enqueue whose workflow Temporal could not start: the row `requeued` (still
 * PENDING with its retry count, nothing picked it up) is FAILED again exactly as `previous` was
 * (retry count, error, timestamps), and a target with a status of its own mirrors FAILED again,
 * in one transaction. The compensation of the re-enqueue's own write, so no transition guard.
 * @returns false when the row moved on meanwhile (then it stays as it is).
 */
export async function restoreFailedJob(db: PrismaClient, requeued: AsyncJob, previous: AsyncJob, targets: TargetHookRegistry): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const restored = await tx.asyncJob.updateMany({
      where: { jobId: requeued.jobId, status: 'PENDING', retryCount: requeued.retryCount, startedAt: null },
      data: {
        status: previous.status,
        retryCount: previous.retryCount,
        errorMessage: previous.errorMessage,
        startedAt: previous.startedAt,
        finishedAt: previous.finishedAt,
        updatedAt: previous.updatedAt,
      },
    });
    if (restored.count !== 1) return false;
    await hooksOf(targets, requeued.jobType).mirror?.(tx, requeued.targetId, previous.status);
    return true;
  });
}
