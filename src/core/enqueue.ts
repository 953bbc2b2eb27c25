/**
 * SAN-3/SAN-4 enqueue-then-start, the one implementation: rows and their PENDING jobs commit in one
 * transaction; the workflows start after the commit. A start that fails (Temporal down, process
 * killed) leaves the row PENDING for the reconciler, which starts it by the same workflow ID, so a
 * crash between commit and start loses nothing and starts nothing twice.
 */
import type { AsyncJob, Prisma, PrismaClient } from '@prisma/client';
import { enqueueIfNoneActive, type JobKey } from './projection';
import type { JobStarter, StartableJob } from './starter';

/** Minimal logger of the caller (pino, fastify's request log, the activity log adapter). */
export interface WarnLog {
  warn(obj: object, msg: string): void;
}

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
  await startAfterCommit(deps, created);
  return value;
}

/**
 * Starts committed jobs' workflows (idempotent by workflow ID); a failed start is logged and left to
 * the reconciler (the row is durable and PENDING). Never throws.
 */
export async function startAfterCommit(deps: Pick<EnqueueDeps, 'starter' | 'log'>, jobs: readonly StartableJob[]): Promise<void> {
  for (const job of jobs) {
    try {
      await deps.starter.start(job);
    } catch (err) {
      deps.log.warn({ err, jobId: job.jobId, jobType: job.jobType }, 'workflow start failed; the reconciler will start it');
    }
  }
}
