/**
 * Projection activities of the job core on the `jobs` task queue (SAN-1, SAN-4, DC-3): a job's
 * PROCESSING and FAILED transitions, completion in the caller's transaction, and the SAN-4
 * reconciler. Every write is a guarded transition, so a retried activity changes nothing twice.
 */
import { log as activityLog } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { DbTx } from '../../db/client';
import { transitionJob } from '../../core/projection';
import type { JobStarter } from '../../core/starter';
import type { JobStatus, JobType } from '../../core/contracts';
import { CORE_FAILURES, failure } from '../../core/failures';
import { hooksOf, type TargetHookRegistry } from '../../core/target-hooks';

/** Dependencies of the projection activities. */
export interface JobActivityDeps {
  db: PrismaClient;
  starter: JobStarter;
  /** Reads a cancelled run's history for the cancellation's reason (absent: a generic reason). */
  client?: Client;
  /** Target hooks: a target with a status of its own follows its job to FAILED (DC-3). */
  targets?: TargetHookRegistry;
}

/** Which job a cancelled run belonged to, and the run. */
export interface CancelledJob {
  jobId: string;
  jobType: JobType;
  targetId: string;
  workflowId: string;
  runId: string;
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

/**
 * SAN-4/DC-3: runs `fn` and completes job `jobId` in ONE transaction, so the result and COMPLETED
 * commit together (a retried activity finds the result and a no-op transition).
 */
export async function completeWith<T>(db: PrismaClient, jobId: string, fn: (tx: DbTx) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    const value = await fn(tx);
    await transitionJob(tx, jobId, 'COMPLETED');
    return value;
  });
}

/** Builds the `jobs` task-queue activities of the core. */
export function createJobActivities({ db, starter, client, targets = {} }: JobActivityDeps) {
  /** The reason of the run's cancellation request: its `reason`, else who asked. */
  async function cancellationReason(workflowId: string, runId: string): Promise<string> {
    if (!client) return 'cancellation requested';
    try {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const req = history.events?.find((e) => e.workflowExecutionCancelRequestedEventAttributes)?.workflowExecutionCancelRequestedEventAttributes;
      if (req?.cause) return req.cause;
      if (req?.identity) return `requested by ${req.identity}`;
    } catch (err) {
      activityLog.warn('cancellation reason unavailable', { workflowId, runId, error: String(err) });
    }
    return 'cancellation requested';
  }

  return {
    /**
     * SAN-4: PENDING → PROCESSING. PROCESSING again (retry, replay) proceeds; a terminal row means
     * a late duplicate start and the workflow stops. Retryable; non-retryable JOB_NOT_FOUND.
     */
    async beginJob(jobId: string): Promise<BeginResult> {
      const r = await transitionJob(db, jobId, 'PROCESSING');
      if (r.status === null) throw failure(CORE_FAILURES, 'JOB_NOT_FOUND', `job ${jobId} not found`);
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
     * SAN-4: a cancelled job workflow's row → FAILED `cancelled: <reason>` (the cancellation
     * request's reason from the run's history, else `requested by <identity>`), its target
     * following through its `mirror` hook in the same transaction; a no-op on a terminal row.
     * Called from a non-cancellable scope. Retryable (PROJECTION_RETRY). Returns the stored message.
     */
    async failCancelledJob(job: CancelledJob): Promise<{ status: JobStatus | null; errorMessage: string }> {
      const errorMessage = `cancelled: ${await cancellationReason(job.workflowId, job.runId)}`;
      const r = await db.$transaction(async (tx) => {
        const t = await transitionJob(tx, job.jobId, 'FAILED', errorMessage);
        if (t.changed) await hooksOf(targets, job.jobType).mirror?.(tx, job.targetId, 'FAILED');
        return t;
      });
      activityLog.warn('job cancelled', { jobId: job.jobId, changed: r.changed, errorMessage });
      return { status: r.status, errorMessage };
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
