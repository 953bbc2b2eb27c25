/**
 * SAN-3/SAN-4 enqueue-then-start for async_jobs, the create path of the API: rows and their PENDING
 * jobs commit in one transaction; the workflows start after the commit ({@link startOrUndo}): when
 * Temporal is unavailable the request's rows are deleted again and it answers 503
 * WORKFLOW_START_UNAVAILABLE; any other lost start is the reconciler's.
 */
import { Prisma, type AsyncJob, type PrismaClient } from '@prisma/client';
import { startOrUndo, type WarnLog } from './after-commit';
import type { JobType } from './contracts';
import { enqueueIfNoneActive, type JobKey } from './projection';
import type { JobStarter, StartableJob } from './starter';
import { ASYNC_JOB_WEBHOOK_SOURCE, recordJobRequestWebhooks, removeOrphanJobRequestWebhooks, type JobRequestWebhook } from './webhook-requests';

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
  /**
   * Registers how to undo a write of the body other than its jobs (e.g. delete the target row it
   * created), should the first workflow start find Temporal unavailable: run in one transaction
   * after the body's new jobs are deleted, the last registered first.
   */
  undoWith(undo: (tx: Prisma.TransactionClient) => Promise<unknown>): void;
  /**
   * Keeps the request's per-request webhook for each of `jobIds` still active (new or already
   * there; {@link recordJobRequestWebhooks}); the undo removes these targets again. Returns how
   * many jobs it was kept for.
   */
  attachWebhook(webhook: JobRequestWebhook, jobIds: readonly string[]): Promise<number>;
}

/** Interactive-transaction limits (ms), as Prisma's `maxWait` / `timeout`. */
export interface TxLimits {
  maxWait?: number;
  timeout?: number;
}

/**
 * Runs `body` in one transaction, then starts the workflow of every job it enqueued (SAN-4).
 * Returns what `body` returned. A throw from `body` rolls everything back and starts nothing.
 * @throws DomainError 503 WORKFLOW_START_UNAVAILABLE when Temporal is unavailable for the first
 *   start: the new jobs and what `body` registered with `undoWith` are deleted again.
 */
export async function enqueueAndStart<T>(deps: EnqueueDeps, body: (scope: EnqueueScope) => Promise<T>, limits?: TxLimits): Promise<T> {
  let created: StartableJob[] = [];
  let undos: ((tx: Prisma.TransactionClient) => Promise<unknown>)[] = [];
  const value = await deps.db.$transaction(async (tx) => {
    created = [];
    undos = [];
    return body({
      tx,
      async enqueue(key) {
        const r = await enqueueIfNoneActive(tx, key);
        if (r.created) created.push(r.job);
        return r;
      },
      undoWith: (undo) => void undos.push(undo),
      async attachWebhook(webhook, jobIds) {
        const ids = await recordJobRequestWebhooks(tx, webhook, jobIds);
        if (ids.length > 0) undos.push((t) => t.webhookRequestTarget.deleteMany({ where: { id: { in: ids } } }));
        return ids.length;
      },
    });
  }, limits);
  await startJobsOrUndo(deps, created, undos);
  return value;
}

/**
 * Starts each committed job's workflow ({@link startOrUndo}); when Temporal is unavailable for the
 * first, deletes the jobs (still PENDING: nothing started them) and runs `undos`, then removes the
 * request webhooks of the jobs (and companions) now gone, and throws the 503.
 */
async function startJobsOrUndo(deps: EnqueueDeps, jobs: readonly StartableJob[], undos: readonly ((tx: Prisma.TransactionClient) => Promise<unknown>)[]): Promise<void> {
  const starts = jobs.map((job) => ({ ids: { jobId: job.jobId, jobType: job.jobType }, start: () => deps.starter.start(job) }));
  await startOrUndo(deps.log, starts, () =>
    deps.db.$transaction(async (tx) => {
      await tx.asyncJob.deleteMany({ where: { jobId: { in: jobs.map((j) => j.jobId) }, status: 'PENDING' } });
      for (const undo of [...undos].reverse()) await undo(tx);
      await removeOrphanJobRequestWebhooks(tx, jobs.flatMap((j) => [j.jobId, ...(j.companions ?? []).map((c) => c.jobId)]));
    }),
  );
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
 * (its workflow starts them, {@link StartableJob.companions}). When Temporal is unavailable for it,
 * the jobs and the target (`targetDelete(targetId)`: the statement deleting the target row) are
 * deleted again and the 503 thrown, as in {@link enqueueAndStart}; another failed start is left to
 * the reconciler. A new target has no active job, so SAN-2 holds (the partial unique index still
 * guards it). With `webhook`, the same statement keeps it for every new job (a per-request
 * webhook, src/core/webhook-requests.ts), removed with the undo. Returns null, having written
 * nothing, when the target already existed: the caller takes its usual path ({@link enqueueAndStart}).
 * @throws DomainError 503 WORKFLOW_START_UNAVAILABLE as above.
 */
export async function enqueueNewTargetAndStart(
  deps: EnqueueDeps,
  targetInsert: Prisma.Sql,
  jobTypes: readonly [JobType, ...JobType[]],
  userId: string,
  targetDelete: (targetId: string) => Prisma.Sql,
  webhook?: JobRequestWebhook,
): Promise<NewTargetJobs | null> {
  const types = Prisma.join(jobTypes.map((t, i) => Prisma.sql`(${t}, ${i})`));
  const targets = webhook
    ? Prisma.sql`,
    targets AS (
      INSERT INTO webhook_request_targets (id, source, resource_id, user_id, url)
      SELECT gen_random_uuid(), ${ASYNC_JOB_WEBHOOK_SOURCE}, jobs.job_id::text, ${webhook.userId}::uuid, ${webhook.url} FROM jobs
    )`
    : Prisma.empty;
  const rows = await deps.db.$queryRaw<{ job_id: string; job_type: JobType; target_id: string; ord: number }[]>`
    WITH target AS (${targetInsert}),
    jobs AS (
      INSERT INTO async_jobs (job_id, job_type, target_id, user_id, status, updated_at)
      SELECT gen_random_uuid(), t.job_type::"JobType", target.id, ${userId}::uuid, 'PENDING', now()
      FROM target CROSS JOIN (VALUES ${types}) AS t(job_type, ord)
      ON CONFLICT (target_id, job_type) WHERE status IN ('PENDING', 'PROCESSING') DO NOTHING
      RETURNING job_id, job_type::text AS job_type, target_id::text AS target_id
    )${targets}
    SELECT jobs.job_id::text AS job_id, jobs.job_type, jobs.target_id, t.ord
    FROM jobs JOIN (VALUES ${types}) AS t(job_type, ord) ON t.job_type = jobs.job_type
    ORDER BY t.ord`;
  if (rows.length === 0) return null;
  if (rows.length !== jobTypes.length) throw new Error(`new target ${rows[0]!.target_id}: ${rows.length} of ${jobTypes.length} jobs inserted`);
  const jobs: StartableJob[] = rows.map((r) => ({ jobId: r.job_id, jobType: r.job_type, targetId: r.target_id, userId }));
  const [first, ...rest] = jobs as [StartableJob, ...StartableJob[]];
  const undoTarget = async (tx: Prisma.TransactionClient) => {
    await tx.asyncJob.deleteMany({ where: { jobId: { in: rest.map((j) => j.jobId) }, status: 'PENDING' } });
    await tx.$executeRaw(targetDelete(first.targetId));
  };
  await startJobsOrUndo(deps, [rest.length > 0 ? { ...first, companions: rest } : first], [undoTarget]);
  return { targetId: first.targetId, jobs };
}
