/**
 * Projection activities of the job core on the `jobs` task queue (SAN-1, SAN-4, DC-3): a job's
 * PROCESSING and FAILED transitions, completion in the caller's transaction, and the SAN-4
 * reconciler. Every write is a guarded transition, so a retried activity changes nothing twice.
 */
import { log as activityLog } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import type { AsyncJob, PrismaClient } from '@prisma/client';
import type { DbTx } from '../../db/client';
import { failJobAsRead, transitionJob } from '../../core/projection';
import type { JobStarter, StartableJob } from '../../core/starter';
import type { StartOutcome } from '../../core/workflow-start';
import { countOf, reconcile } from '../../core/reconciler';
import type { JobStatus, JobType } from '../../core/contracts';
import { ASYNC_JOB_STATES } from '../../core/job-state';
import { CORE_FAILURES } from '../../core/errors';
import { failure } from '../../core/failures';
import { hooksOf, type TargetHookRegistry } from '../../core/target-hooks';

/** Dependencies of the projection activities. */
export interface JobActivityDeps {
  db: PrismaClient;
  starter: JobStarter;
  /** Reads a cancelled run's history for the cancellation's reason (absent: a generic reason). */
  client?: Client;
  /** Target hooks: a target with a status of its own follows its job to FAILED. */
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
  /** PENDING rows older than the grace that were looked at. */
  examined: number;
  /** Rows whose workflow was started. */
  started: number;
  /** Rows whose workflow ID has a run open (this job's or another job's), or whose attempt already ran: nothing started. */
  alreadyRunning: number;
  /** Rows not started because they are no longer PENDING. */
  skipped?: number;
  failedToStart: number;
  /** Rows failed because their run was terminated or timed out ({@link JobActivities.failClosedRuns}). */
  closedFailed?: number;
}

/** What {@link JobActivities.startStalePendingJobs} did to one PENDING row. */
type PendingJobAction = StartOutcome | 'skipped' | 'start-failed';

/** Result of {@link JobActivities.failClosedRuns}. */
export interface ClosedRunsReport {
  /** Terminated / timed-out job runs looked at. */
  examined: number;
  /** Rows moved to FAILED. */
  failed: number;
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

  /** The latest run of `workflowId`: open or closed (when), and the job it ran (memo); undefined when none. */
  async function runOf(workflowId: string): Promise<{ runId: string; open: boolean; jobId?: string; closedAt?: Date } | undefined> {
    if (!client) return undefined;
    try {
      const d = await client.workflow.getHandle(workflowId).describe();
      const jobId = typeof d.memo?.jobId === 'string' ? d.memo.jobId : undefined;
      return { runId: d.runId, open: d.status.name === 'RUNNING', ...(jobId ? { jobId } : {}), ...(d.closeTime ? { closedAt: d.closeTime } : {}) };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /** The reason given to `terminate` (from the run's last history event), else who terminated it. */
  async function terminationReason(workflowId: string, runId: string): Promise<string> {
    const res = await client!.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client!.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 1,
    });
    const t = res.history?.events?.[0]?.workflowExecutionTerminatedEventAttributes;
    if (t?.reason) return t.reason;
    return t?.identity ? `by ${t.identity}` : 'no reason given';
  }

  return {
    /**
     * PENDING → PROCESSING. PROCESSING again (retry, replay) proceeds; a terminal row means
     * a late duplicate start and the workflow stops. Retryable; non-retryable JOB_NOT_FOUND.
     */
    async beginJob(jobId: string): Promise<BeginResult> {
      const r = await transitionJob(db, jobId, 'PROCESSING');
      if (r.status === null) throw failure(CORE_FAILURES, 'JOB_NOT_FOUND', `job ${jobId} not found`);
      activityLog.info('job begin', { jobId, status: r.status, changed: r.changed });
      return { proceed: r.status === 'PROCESSING', status: r.status };
    },

    /**
     * SAN-4: starts the workflows of committed companion jobs (a target's other jobs, from its
     * first job's run), each under its own workflow ID. Idempotent: a run already open is
     * `already-running`, and a companion whose row is no longer PENDING was started before (this
     * local activity runs again when its workflow task is retried, e.g. after a Temporal node died)
     * and is not started again, so a finished companion gets no second run. Retryable; when it gives
     * up, the rows are PENDING and the reconciler starts them.
     */
    async startJobs(jobs: StartableJob[]): Promise<StartOutcome[]> {
      const outcomes: StartOutcome[] = [];
      for (const job of jobs) {
        const row = await db.asyncJob.findUnique({ where: { jobId: job.jobId }, select: { status: true } });
        outcomes.push(row && row.status !== 'PENDING' ? 'already-running' : await starter.start(job));
      }
      activityLog.info('companion jobs started', { jobIds: jobs.map((j) => j.jobId), outcomes });
      return outcomes;
    },

    /** PENDING|PROCESSING → FAILED with the cause chain; a no-op on a terminal row. */
    async failJob(jobId: string, errorMessage: string): Promise<JobStatus | null> {
      const r = await transitionJob(db, jobId, 'FAILED', errorMessage);
      activityLog.warn('job failed', { jobId, changed: r.changed, errorMessage });
      return r.status;
    },

    /**
     * A cancelled job workflow's row → FAILED `cancelled: <reason>` (the cancellation
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
     * committed it but died before starting it), oldest first, at most `limit`. It never multiplies
     * work: right before starting, each row must still be PENDING, and the start is keyed by the
     * job's attempt (job and retry count, src/core/starter.ts), so a run of that attempt, open or already closed, started
     * by anyone before or while we look, is never followed by a second one (a terminated one is
     * {@link failClosedRuns}'s). A reconciler rule (`reconcile-pending-jobs`,
     * src/core/reconciler.ts): heartbeats per row, returns counts. Retryable (MAINTENANCE_RETRY);
     * a repeated pass starts nothing twice.
     */
    async startStalePendingJobs(args: { graceSeconds: number; limit: number }): Promise<ReconcileReport> {
      const cutoff = new Date(Date.now() - args.graceSeconds * 1000);
      const pass = await reconcile<AsyncJob, PendingJobAction>({
        rule: 'reconcile-pending-jobs',
        lost: () => db.asyncJob.findMany({ where: { status: 'PENDING', createdAt: { lte: cutoff } }, orderBy: { createdAt: 'asc' }, take: args.limit }),
        async settle(row) {
          // The row as it is now: its attempt (retry count) keys the start.
          const now = await db.asyncJob.findUnique({ where: { jobId: row.jobId } });
          if (now?.status !== 'PENDING') return 'skipped';
          return starter.start(now);
        },
        failed: 'start-failed',
        ids: (row) => ({ jobId: row.jobId }),
      }, activityLog);
      const n = (a: PendingJobAction) => countOf(pass, a);
      return { examined: pass.examined, started: n('started'), alreadyRunning: n('already-running'), skipped: n('skipped'), failedToStart: n('start-failed') };
    },

    /**
     * SAN-4/DC-3: a job run that was terminated or timed out runs no workflow code, so its row would
     * stay PENDING/PROCESSING until the stale rule. Job runs on `jobsTaskQueue` that closed so within
     * the last `lookbackSeconds` (visibility, at most `limit`) whose row is still active, unchanged
     * since the run closed, and which are still the latest run of their workflow ID, are moved to
     * FAILED `terminated: <reason>` / `timed out: …` (compare-and-set on the row as read; the target
     * follows through its `mirror` hook). The SAN-6 retry rules then apply as usual. A reconciler
     * rule (`reconcile-closed-runs`): a run that cannot be settled is logged and left to the next
     * pass. Idempotent.
     */
    async failClosedRuns(args: { jobsTaskQueue: string; lookbackSeconds: number; limit: number }): Promise<ClosedRunsReport> {
      if (!client) return { examined: 0, failed: 0 };
      const since = new Date(Date.now() - args.lookbackSeconds * 1000).toISOString();
      const query =
        `TaskQueue = '${args.jobsTaskQueue}' AND JobType IS NOT NULL AND CloseTime > '${since}'` +
        ` AND (ExecutionStatus = 'Terminated' OR ExecutionStatus = 'TimedOut')`;
      const pass = await reconcile<WorkflowExecutionInfo, 'marked-failed' | 'error'>({
        rule: 'reconcile-closed-runs',
        lost: () => client.workflow.list({ query }),
        limit: args.limit,
        async settle(wf) {
          const jobId = typeof wf.memo?.jobId === 'string' ? wf.memo.jobId : undefined;
          if (!jobId) return null;
          const row = await db.asyncJob.findUnique({ where: { jobId } });
          if (!row || !ASYNC_JOB_STATES.isActive(row.status)) return null;
          if (!wf.closeTime || row.updatedAt > wf.closeTime) return null; // re-opened after this run closed
          const latest = await runOf(wf.workflowId);
          if (latest?.runId !== wf.runId) return null; // a newer run owns the row
          const errorMessage = wf.status.name === 'TERMINATED'
            ? `terminated: ${await terminationReason(wf.workflowId, wf.runId)}`
            : 'timed out: the run exceeded its execution or run timeout';
          const changed = await db.$transaction(async (tx) => {
            const r = await failJobAsRead(tx, row, errorMessage);
            if (r.changed) await hooksOf(targets, row.jobType).mirror?.(tx, row.targetId, 'FAILED');
            return r.changed;
          });
          if (!changed) return null;
          activityLog.warn('job failed after its run closed', { jobId, workflowId: wf.workflowId, errorMessage });
          return 'marked-failed';
        },
        failed: 'error',
        ids: (wf) => ({ workflowId: wf.workflowId, runId: wf.runId }),
      }, activityLog);
      return { examined: pass.examined, failed: countOf(pass, 'marked-failed') };
    },
  };
}

/** Type of the `jobs` activities, for `proxyActivities` in workflows. */
export type JobActivities = ReturnType<typeof createJobActivities>;
