/**
 * Guarded writes to the async_jobs projection (SAN-1, SAN-2, SAN-4, DC-3). Every transition is a
 * conditional update, so a late or repeated call is a no-op that reports the current status.
 */
import { Prisma, type AsyncJob } from '@prisma/client';
import type { DbClient } from '../db/client';
import type { JobStatus, JobType } from './contracts';
import { sourcesOf } from './job-state';
import { jobMetrics } from './metrics';
import { storableText } from './cause-chain';

export type { DbClient };

/** Outcome of a guarded transition: `changed` false means it was not legal from `status`. */
export interface TransitionResult {
  changed: boolean;
  status: JobStatus | null;
}

/**
 * Moves job `jobId` to `to` when its current status allows it (DC-3), stamping started/finished
 * times; `errorMessage` is stored with FAILED (made storable, {@link storableText}). Returns the status after the call (null: no row).
 * Counted where it happens (issue 7 §2): COMPLETED/FAILED and their duration since enqueue, or a
 * rejected (late/duplicate) transition. Inside a transaction the count is taken at the guarded
 * UPDATE, so a transaction that rolls back afterwards and is retried counts that transition twice.
 */
export async function transitionJob(
  db: DbClient,
  jobId: string,
  to: JobStatus,
  errorMessage?: string,
): Promise<TransitionResult> {
  const now = new Date();
  const data: Prisma.AsyncJobUpdateManyMutationInput = { status: to };
  if (to === 'PROCESSING') data.startedAt = now;
  if (to === 'COMPLETED' || to === 'FAILED') data.finishedAt = now;
  if (to === 'FAILED') data.errorMessage = storableText(errorMessage ?? 'failed');
  const updated = await db.asyncJob.updateManyAndReturn({
    where: { jobId, status: { in: sourcesOf(to) } },
    data,
    select: { jobType: true, createdAt: true },
  });
  const moved = updated[0];
  if (moved) {
    jobMetrics.transitioned(moved.jobType, to, moved.createdAt, now);
    return { changed: true, status: to };
  }
  const row = await db.asyncJob.findUnique({ where: { jobId }, select: { status: true, jobType: true } });
  jobMetrics.rejected(row?.jobType ?? null, to);
  return { changed: false, status: row?.status ?? null };
}

/**
 * The guarded COMPLETED transition of job `jobId` (DC-3: only from the states {@link transitionJob}
 * allows) as a data-modifying CTE named `completed_job` (`RETURNING job_type, created_at`), for a
 * store-and-complete done in ONE statement (issue 7 §1 (b): one round trip instead of an
 * interactive transaction of many). `now`: finished_at and updated_at. Count the outcome with
 * {@link countCompletion}.
 */
export function completedJobCte(jobId: string, now: Date): Prisma.Sql {
  return Prisma.sql`completed_job AS (
    UPDATE async_jobs SET status = 'COMPLETED', finished_at = ${now}, updated_at = ${now}
    WHERE job_id = ${jobId}::uuid AND status::text = ANY(${sourcesOf('COMPLETED')}::text[])
    RETURNING job_type, created_at)`;
}

/**
 * Counts the outcome of a {@link completedJobCte} statement as {@link transitionJob} counts its own:
 * `moved` = the CTE's row (undefined when the guard rejected it, which costs one more read).
 */
export async function countCompletion(db: DbClient, jobId: string, moved: { jobType: string; createdAt: Date } | undefined, now: Date): Promise<TransitionResult> {
  if (moved) {
    jobMetrics.transitioned(moved.jobType, 'COMPLETED', moved.createdAt, now);
    return { changed: true, status: 'COMPLETED' };
  }
  const row = await db.asyncJob.findUnique({ where: { jobId }, select: { status: true, jobType: true } });
  jobMetrics.rejected(row?.jobType ?? null, 'COMPLETED');
  return { changed: false, status: row?.status ?? null };
}

/** Identity of a job to enqueue. */
export interface JobKey {
  jobType: JobType;
  targetId: string;
  userId: string;
}

/**
 * SAN-2: inserts a PENDING job unless one is already active for (targetId, jobType); concurrent
 * callers serialise on the unique partial index. Returns the active job and whether it is new.
 */
export async function enqueueIfNoneActive(
  db: DbClient,
  key: JobKey,
): Promise<{ job: AsyncJob; created: boolean }> {
  const inserted = await db.$queryRaw<{ job_id: string }[]>`
    INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, updated_at)
    VALUES (gen_random_uuid(), ${key.jobType}::"JobType", ${key.targetId}::uuid, ${key.userId}::uuid,
            'PENDING', now())
    ON CONFLICT (target_id, job_type) WHERE status IN ('PENDING', 'PROCESSING') DO NOTHING
    RETURNING job_id`;
  const insertedId = inserted[0]?.job_id;
  if (insertedId) {
    return { job: await db.asyncJob.findUniqueOrThrow({ where: { jobId: insertedId } }), created: true };
  }
  const active = await db.asyncJob.findFirst({
    where: { targetId: key.targetId, jobType: key.jobType, status: { in: ['PENDING', 'PROCESSING'] } },
  });
  if (active) return { job: active, created: false };
  // The active job finished between our insert and read: the target is free again.
  return enqueueIfNoneActive(db, key);
}

/** The most recent job of a type for a target, or null. */
export function latestJob(db: DbClient, targetId: string, jobType: JobType): Promise<AsyncJob | null> {
  return db.asyncJob.findFirst({ where: { targetId, jobType }, orderBy: { createdAt: 'desc' } });
}
