/**
 * SAN-3/SAN-4 enqueue-then-start for async_jobs: rows and their PENDING jobs commit in one
 * transaction; the workflows start after the commit ({@link startAfterCommit}), a lost start being
 * the reconciler's.
 */
import { Prisma, type AsyncJob, type PrismaClient } from '@prisma/client';
import { startAfterCommit, type WarnLog } from './after-commit';
import type { JobType } from './contracts';
import { enqueueIfNoneActive, type JobKey } from './projection';
import type { JobStarter, StartableJob } from './starter';

/** Dependencies of {@link enqueueAndStart}. */
export interface EnqueueDeps {
  db: PrismaClient;
  starter: JobStarter;
  log: WarnLog;
}

/** What the transaction body of {@link enqueueAndStart} receives. */
export interface EnqueueScope {
  tx: Prisma.TransactionClient;
  /**
   * SAN-2 enqueue inside the transaction: a new PENDING job (started after commit), or the job
   * already active for (targetId, jobType) with `created` false (not started again).
   */
  enqueue(key: JobKey): Promise<{ job: AsyncJob; created: boolean }>;
}

/** Interactive-transaction limits (ms), as Prisma's `maxWait` / `timeout`. */
export interface TxLimits {
  maxWait?: number;
  timeout?: number;
}

/**
 * Runs `body` in one transaction, then starts the workflow of every job it enqueued (SAN-4).
 * Returns what `body` returned. A throw from `body` rolls everything back and starts nothing.
 */
export async function enqueueAndStart<T>(deps: EnqueueDeps, body: (scope: EnqueueScope) => Promise<T>, limits?: TxLimits): Promise<T> {
  let created: StartableJob[] = [];
  const value = await deps.db.$transaction(async (tx) => {
    created = [];
    return body({
      tx,
      async enqueue(key) {
        const r = await enqueueIfNoneActive(tx, key);
        if (r.created) created.push(r.job);
        return r;
      },
    });
  }, limits);
  await startJobsAfterCommit(deps, created);
  return value;
}

/** Starts each committed job's workflow ({@link startAfterCommit}: a failure is left to the reconciler). Never throws. */
async function startJobsAfterCommit(deps: Pick<EnqueueDeps, 'starter' | 'log'>, jobs: readonly StartableJob[]): Promise<void> {
  for (const job of jobs) await startAfterCommit(deps.log, { jobId: job.jobId, jobType: job.jobType }, () => deps.starter.start(job));
}

/** Jobs of a new target, in the order of the job types asked for. */
export interface NewTargetJobs {
  targetId: string;
  jobs: StartableJob[];
}

/**
 * SAN-2/SAN-3/SAN-4 fast path of a new target: inserts the target row and one
 * PENDING job per type in ONE statement (`targetInsert` is an `INSERT … RETURNING id` that
 * returns no row when the target already exists, e.g. `ON CONFLICT DO NOTHING`), which commits on
 * its own; then makes ONE workflow start: the first job's, with the others as its companions
 * (its workflow starts them, {@link StartableJob.companions}). A failed start is logged and left
 * to the reconciler, as in {@link startAfterCommit}. A new target has no active job, so SAN-2 holds
 * (the partial unique index still guards it). Returns null, having written nothing, when the target
 * already existed: the caller takes its usual path ({@link enqueueAndStart}).
 */
export async function enqueueNewTargetAndStart(
  deps: EnqueueDeps,
  targetInsert: Prisma.Sql,
  jobTypes: readonly [JobType, ...JobType[]],
  userId: string,
): Promise<NewTargetJobs | null> {
  const types = Prisma.join(jobTypes.map((t, i) => Prisma.sql`(${t}, ${i})`));
  const rows = await deps.db.$queryRaw<{ job_id: string; job_type: JobType; target_id: string; ord: number }[]>`
    WITH target AS (${targetInsert}),
    jobs AS (
      INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, updated_at)
      SELECT gen_random_uuid(), t.job_type::"JobType", target.id, ${userId}::uuid, 'PENDING', now()
      FROM target CROSS JOIN (VALUES ${types}) AS t(job_type, ord)
      ON CONFLICT (target_id, job_type) WHERE status IN ('PENDING', 'PROCESSING') DO NOTHING
      RETURNING job_id, job_type::text AS job_type, target_id::text AS target_id
    )
    SELECT jobs.job_id::text AS job_id, jobs.job_type, jobs.target_id, t.ord
    FROM jobs JOIN (VALUES ${types}) AS t(job_type, ord) ON t.job_type = jobs.job_type
    ORDER BY t.ord`;
  if (rows.length === 0) return null;
  if (rows.length !== jobTypes.length) throw new Error(`new target ${rows[0]!.target_id}: ${rows.length} of ${jobTypes.length} jobs inserted`);
  const jobs: StartableJob[] = rows.map((r) => ({ jobId: r.job_id, jobType: r.job_type, targetId: r.target_id, userId }));
  const [first, ...rest] = jobs as [StartableJob, ...StartableJob[]];
  await startJobsAfterCommit(deps, [rest.length > 0 ? { ...first, companions: rest } : first]);
  return { targetId: first.targetId, jobs };
}
