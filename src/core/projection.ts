/**
 * Guarded writes to the async_jobs projection (SAN-1, SAN-2, SAN-4, DC-3). Every transition is a
 * conditional update guarded by the async_jobs state machine (src/core/job-state.ts), so a late or
 * repeated call is a no-op that reports the current status.
 */
import { Prisma, type AsyncJob } from '@prisma/client';
import type { DbClient } from '../db/client';
import type { JobResultCode, JobStatus, JobType } from './contracts';
import { ASYNC_JOB_STATES } from './job-state';
import { guardedTransition, settleTransition, transitionGuard, type TransitionResult } from './guarded-transition';
import { jobMetrics } from './metrics';
import { storableText } from './cause-chain';

export type { DbClient };
export type { TransitionResult };

/** A worker's target state: every state but PENDING, which only the SAN-6 retry enters (src/core/retry.ts). */
export type WorkerJobStatus = Exclude<JobStatus, 'PENDING'>;

const statusOf = (db: DbClient, jobId: string) => db.asyncJob.findUnique({ where: { jobId }, select: { status: true } });

/**
 * Moves job `jobId` to `to` when its current status allows it (DC-3), stamping started/finished
 * times; `errorMessage` is stored with FAILED (made storable, {@link storableText}). Returns the
 * status after the call (null: no row). Counted where it happens: COMPLETED/FAILED and their
 * duration since enqueue, or a rejected (late/duplicate) transition. Inside a transaction the count
 * is taken at the guarded UPDATE, so a transaction that rolls back afterwards and is retried counts
 * that transition twice.
 */
export async function transitionJob(
  db: DbClient,
  jobId: string,
  to: WorkerJobStatus,
  errorMessage?: string,
): Promise<TransitionResult<JobStatus>> {
  const now = new Date();
  const startedAt = to === 'PROCESSING' ? Prisma.sql`, started_at = ${now}` : Prisma.empty;
  const finishedAt = to === 'COMPLETED' || to === 'FAILED' ? Prisma.sql`, finished_at = ${now}` : Prisma.empty;
  const message = to === 'FAILED' ? Prisma.sql`, error_message = ${storableText(errorMessage ?? 'failed')}` : Prisma.empty;
  let moved: { jobType: string; createdAt: Date } | undefined;
  const result = await guardedTransition(ASYNC_JOB_STATES, {
    to,
    // One raw statement: a job workflow's begin and end are on every job's path, and a raw query
    // skips the client's query compilation (docs/decisions.md, 2026-12-03).
    write: async (from) => {
      const rows = await db.$queryRaw<{ job_type: string; created_at: Date }[]>`
        UPDATE async_jobs SET status = ${to}::"JobStatus", updated_at = ${now}${startedAt}${finishedAt}${message}
        WHERE job_id = ${jobId}::uuid AND status::text = ANY(${from}::text[])
        RETURNING job_type::text AS job_type, created_at`;
      moved = rows[0] && { jobType: rows[0].job_type, createdAt: rows[0].created_at };
      return rows;
    },
    read: () => statusOf(db, jobId),
  });
  if (moved) jobMetrics.transitioned(moved.jobType, to, moved.createdAt, now);
  return result;
}

/**
 * The guarded COMPLETED transition of job `jobId` (DC-3: only from the states {@link transitionJob}
 * allows) as a data-modifying CTE named `completed_job` (`RETURNING job_type, created_at`), for a
 * store-and-complete done in ONE statement (one round trip instead of an interactive transaction).
 * `now`: finished_at and updated_at. Count the outcome with {@link countCompletion}.
 */
export function completedJobCte(jobId: string, now: Date): Prisma.Sql {
  return Prisma.sql`completed_job AS (
    UPDATE async_jobs SET status = 'COMPLETED', finished_at = ${now}, updated_at = ${now}
    WHERE job_id = ${jobId}::uuid AND status::text = ANY(${transitionGuard(ASYNC_JOB_STATES, 'COMPLETED')}::text[])
    RETURNING job_type, created_at)`;
}

/**
 * Counts the outcome of a {@link completedJobCte} statement as {@link transitionJob} counts its own:
 * `moved` = the CTE's row (undefined when the guard rejected it, which costs one more read).
 */
export async function countCompletion(db: DbClient, jobId: string, moved: { jobType: string; createdAt: Date } | undefined, now: Date): Promise<TransitionResult<JobStatus>> {
  if (moved) jobMetrics.transitioned(moved.jobType, 'COMPLETED', moved.createdAt, now);
  return settleTransition(ASYNC_JOB_STATES, 'COMPLETED', moved !== undefined, () => statusOf(db, jobId));
}

/**
 * DC-3/SAN-6 recovery's FAILED transition of a job as it was read (`status`, `updatedAt`): a
 * compare-and-set that loses to any change since the read (a run that just moved the row wins).
 * Not counted as a failed job: recovery counts it as its own action.
 */
export function failJobAsRead(
  db: DbClient,
  row: Pick<AsyncJob, 'jobId' | 'status' | 'updatedAt'>,
  errorMessage: string,
): Promise<TransitionResult<JobStatus>> {
  return guardedTransition(ASYNC_JOB_STATES, {
    to: 'FAILED',
    from: [row.status],
    write: (from) => db.asyncJob.updateMany({
      where: { jobId: row.jobId, status: { in: from }, updatedAt: row.updatedAt },
      data: { status: 'FAILED', errorMessage: storableText(errorMessage), finishedAt: new Date() },
    }),
    read: () => statusOf(db, row.jobId),
  });
}

/** Identity of a job to enqueue. */
export interface JobKey {
  jobType: JobType;
  targetId: string;
  userId: string;
  /**
   * The target's version now (its family's revision counter), for a job whose result overwrites
   * something a person can edit: its result write compares against it ({@link markJobResult}).
   */
  targetVersion?: number;
}

/**
 * SAN-2: inserts a PENDING job unless one is already active for (targetId, jobType); concurrent
 * callers serialise on the unique partial index. Returns the active job and whether it is new.
 */
export async function enqueueIfNoneActive(
  db: DbClient,
  key: JobKey,
): Promise<{ job: AsyncJob; created: boolean }> {
  // ON CONFLICT names the SAN-2 partial index by its predicate, so the active states are spelled out.
  const inserted = await db.$queryRaw<{ job_id: string }[]>`
    INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, target_version, updated_at)
    VALUES (gen_random_uuid(), ${key.jobType}::"JobType", ${key.targetId}::uuid, ${key.userId}::uuid,
            'PENDING', ${key.targetVersion ?? null}::integer, now())
    ON CONFLICT (target_id, job_type) WHERE status IN ('PENDING', 'PROCESSING') DO NOTHING
    RETURNING job_id`;
  const insertedId = inserted[0]?.job_id;
  if (insertedId) {
    return { job: await db.asyncJob.findUniqueOrThrow({ where: { jobId: insertedId } }), created: true };
  }
  const active = await db.asyncJob.findFirst({
    where: { targetId: key.targetId, jobType: key.jobType, status: { in: [...ASYNC_JOB_STATES.active] } },
  });
  if (active) return { job: active, created: false };
  // The active job finished between our insert and read: the target is free again.
  return enqueueIfNoneActive(db, key);
}

/**
 * Records why active job `jobId` applies no result (`SUPERSEDED`: the compare-and-set of its write
 * on {@link JobKey.targetVersion} failed), in the transaction that completes it; the job view
 * shows it as `resultCode`. A no-op on a terminal row.
 */
export async function markJobResult(db: DbClient, jobId: string, code: JobResultCode): Promise<void> {
  await db.asyncJob.updateMany({ where: { jobId, status: { in: [...ASYNC_JOB_STATES.active] } }, data: { resultCode: code } });
}

/** The most recent job of a type for a target, or null. */
export function latestJob(db: DbClient, targetId: string, jobType: JobType): Promise<AsyncJob | null> {
  return db.asyncJob.findFirst({ where: { targetId, jobType }, orderBy: { createdAt: 'desc' } });
}
