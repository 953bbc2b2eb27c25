/**
 * SAN-6 recovery activities of the job core, on the `jobs` task queue: stale jobs, orphan runs,
 * bounded retries of FAILED jobs, and the single retry. Each repairs one kind of inconsistency
 * between async_jobs and Temporal, in bounded batches, and reports what it found and did. Targets
 * with a status of their own follow through their hooks, so nothing here names a job type. Every
 * write is a guarded update or an idempotent enqueue, so a retried activity, a second run or two
 * runs at once change nothing twice. Families add their own rules with the report helpers below.
 */
import { log as activityLog } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AsyncJob, PrismaClient } from '@prisma/client';
import { startAfterCommit, type WarnLog } from '../../core/after-commit';
import { requeueFailedJob } from '../../core/retry';
import type { JobStarter } from '../../core/starter';
import { SA_JOB_TYPE, SA_TARGET_ID, jobWorkflowId, type JobType } from '../../core/contracts';
import { ASYNC_JOB_STATES } from '../../core/job-state';
import { failJobAsRead } from '../../core/projection';
import { storableText } from '../../core/cause-chain';
import { hooksOf, type TargetHookRegistry } from '../../core/target-hooks';
import { countItem, newPassReport, type PassReport } from '../../core/reconciler';

/** Dependencies of the recovery activities: the worker's clients and the families' declarations. */
export interface RecoveryActivityDeps {
  db: PrismaClient;
  client: Client;
  starter: JobStarter;
  /** Target hooks of every job type (mirror, may-requeue, give-up). */
  targets: TargetHookRegistry;
  /** Every job type whose workflows run on the `jobs` queue (orphan-run search). */
  jobTypes: readonly JobType[];
}

/** What a recovery did to one job, scrap or workflow run. */
export type RecoveryAction =
  /** Stale row, but Temporal says its workflow is running: left alone. */
  | 'left-running'
  /**
   * Stale PROCESSING row whose workflow is running but whose pending activity keeps failing (past
   * `stuckAttempts` attempts, with a last failure): the run is terminated and the job FAILED with
   * that failure as its cause (`stuck: <activity> attempt <n>: <failure>`), then re-enqueued.
   */
  | 'stuck'
  /** Stale row whose workflow is closed or missing: FAILED with `recovered: workflow <status>`. */
  | 'marked-failed'
  /** The row moved while we looked (a live run or another recovery got there first): untouched. */
  | 'changed-concurrently'
  /** FAILED → PENDING with retry_count + 1 (SAN-6 recovery edge). */
  | 'requeued'
  /** FAILED with retry_count at the limit: stays FAILED for a human. */
  | 'limit-reached'
  /** Another job of the same target is active or newer: this one is not re-run (SAN-2). */
  | 'superseded'
  /** The row is not FAILED (retry of a job that is pending, running or completed). */
  | 'not-failed'
  /** The target's `mayRequeue` hook refused: not re-run (e.g. its own row is closed). */
  | 'target-closed'
  | 'not-found'
  /** A new PENDING job was enqueued for a target that had none (a family's rule). */
  | 'enqueued'
  /** The target already had an active job of that type (a concurrent enqueue won). */
  | 'already-active'
  /** The workflow was started. */
  | 'started'
  /** A run with the job's workflow ID is still open; the reconciler starts the job after it closes. */
  | 'already-running'
  /** Temporal was unreachable; the row is PENDING and the reconciler starts it. */
  | 'start-failed'
  /** A running job workflow whose row is terminal or missing was terminated. */
  | 'terminated';

/** One examined row or run and what was done, in order. */
export interface RecoveryItem {
  jobId: string | null;
  jobType: JobType;
  targetId: string;
  workflowId: string;
  actions: RecoveryAction[];
  detail?: string;
}

/** Result of one recovery pass: the reconciler's report (counts per action over every examined row), and the rows. */
export interface RecoveryReport extends PassReport<RecoveryAction> {
  /** `stale-jobs`, `failed-jobs`, `retry-job`, or a family rule's name (e.g. `missing-cards`). */
  rule: string;
  items: RecoveryItem[];
}

/** Input of {@link RecoveryActivities.recoverStaleJobs}; ages in minutes. */
export interface StaleJobsArgs {
  pendingStaleMinutes: number;
  processingStaleMinutes: number;
  maxRetries: number;
  batchSize: number;
  /** A running job's pending activity past this attempt with a last failure is `stuck` (default {@link DEFAULT_STUCK_ATTEMPTS}). */
  stuckAttempts?: number;
}

/** Default of {@link StaleJobsArgs.stuckAttempts} (RECOVERY_STUCK_ATTEMPTS). */
export const DEFAULT_STUCK_ATTEMPTS = 5;

/** Input of {@link RecoveryActivities.terminateOrphanRuns}. */
export interface OrphanRunsArgs {
  /** The `jobs` task queue whose job workflows are examined (isolates prefixed deployments). */
  jobsTaskQueue: string;
  /** Only runs started longer ago than this are examined (a fresh run skips a terminal row itself). */
  processingStaleMinutes: number;
  batchSize: number;
}

/**
 * Temporal's view of a job's workflow: running, or closed/missing with a status for the error;
 * `stuck` describes a running run's pending activity that keeps failing.
 */
interface WorkflowView {
  running: boolean;
  status: string;
  runId?: string;
  stuck?: string;
}

/** The fields of a Temporal failure proto that {@link describeFailure} reads. */
interface FailureProto {
  message?: string | null;
  applicationFailureInfo?: { type?: string | null } | null;
  cause?: FailureProto | null;
}

/** `Type: message <- Type: message` of a failure proto and its causes (at most 4). */
export function describeFailure(f: FailureProto | null | undefined): string {
  const parts: string[] = [];
  for (let cur = f, n = 0; cur && n < 4; cur = cur.cause, n++) {
    const type = cur.applicationFailureInfo?.type;
    parts.push(type ? `${type}: ${cur.message ?? ''}` : (cur.message ?? ''));
  }
  return parts.join(' <- ');
}

/** An empty report of `rule`. */
export function newReport(rule: RecoveryReport['rule']): RecoveryReport {
  return { ...newPassReport<RecoveryAction>(rule), items: [] };
}

/** Appends `item` to `report`, counting its actions ({@link countItem}: also in `job_recovery_actions_total`). */
export function record(report: RecoveryReport, item: RecoveryItem): void {
  report.items.push(item);
  countItem(report, item.actions);
}

/** The report item of one job row. */
export function itemOf(job: Pick<AsyncJob, 'jobId' | 'jobType' | 'targetId'>, actions: RecoveryAction[], detail?: string): RecoveryItem {
  const item: RecoveryItem = { jobId: job.jobId, jobType: job.jobType, targetId: job.targetId, workflowId: jobWorkflowId(job.jobType, job.targetId), actions };
  if (detail !== undefined) item.detail = detail;
  return item;
}

/** {@link startAfterCommit}'s warning through the activity logger, its error as text. */
const activityWarnLog: WarnLog = { warn: (obj, msg) => activityLog.warn(msg, { ...obj, ...('err' in obj ? { err: String(obj.err) } : {}) }) };

/** Starts a job's workflow after an enqueue ({@link startAfterCommit}: a failed start is left to the SAN-4 reconciler). */
export async function startJob(starter: JobStarter, job: AsyncJob, actions: RecoveryAction[]): Promise<void> {
  actions.push(await startAfterCommit(activityWarnLog, { jobId: job.jobId, jobType: job.jobType }, () => starter.start(job)));
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** Builds the SAN-6 recovery activities of the core (registered on the `jobs` worker). */
export function createRecoveryActivities({ db, client, starter, targets, jobTypes }: RecoveryActivityDeps) {
  /**
   * Describes the job's workflow by ID; a latest run that belongs to another job counts as missing.
   * A running run whose pending activity is past `stuckAttempts` with a last failure is `stuck`.
   */
  async function workflowView(job: AsyncJob, stuckAttempts: number): Promise<WorkflowView> {
    try {
      const d = await client.workflow.getHandle(jobWorkflowId(job.jobType, job.targetId)).describe();
      if (d.status.name === 'RUNNING') {
        const memo = d.memo?.jobId;
        const ours = typeof memo !== 'string' || memo === job.jobId;
        const failing = ours ? (d.raw.pendingActivities ?? []).find((a) => (a.attempt ?? 0) > stuckAttempts && a.lastFailure) : undefined;
        const stuck = failing
          ? `${failing.activityType?.name ?? 'activity'} attempt ${failing.attempt}: ${describeFailure(failing.lastFailure)}`
          : undefined;
        return { running: true, status: 'RUNNING', runId: d.runId, ...(stuck ? { stuck } : {}) };
      }
      const memoJobId = d.memo?.jobId;
      if (typeof memoJobId === 'string' && memoJobId !== job.jobId) return { running: false, status: 'not found' };
      return { running: false, status: d.status.name };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { running: false, status: 'not found' };
      throw err;
    }
  }

  /** Re-enqueues a FAILED job within the limit and starts it; the outcome is appended to `actions`. */
  async function requeueAndStart(jobId: string, maxRetries: number, actions: RecoveryAction[]): Promise<void> {
    const r = await requeueFailedJob(db, jobId, maxRetries, targets);
    actions.push(r.outcome);
    if (r.outcome === 'requeued') await startJob(starter, r.job, actions);
  }


  return {
    /**
     * SAN-6 rule 1: PENDING rows older than `pendingStaleMinutes` (since entering PENDING) and
     * PROCESSING rows older than `processingStaleMinutes` (since starting) are compared with
     * Temporal. Workflow running → left alone, unless a PROCESSING job's pending activity keeps
     * failing (attempt > `stuckAttempts` with a last failure): then it is `stuck`, its run is
     * terminated and it is failed with `stuck: <activity> attempt <n>: <last failure>`. Closed or missing → FAILED with `recovered: workflow
     * <status>` (compare-and-set on the row as read, so a run that just moved it wins), then
     * re-enqueued within the retry limit and started. Idempotency: guarded updates. Retryable.
     */
    async recoverStaleJobs(args: StaleJobsArgs): Promise<RecoveryReport> {
      const pendingCutoff = minutesAgo(args.pendingStaleMinutes);
      const processingCutoff = minutesAgo(args.processingStaleMinutes);
      const rows = await db.asyncJob.findMany({
        where: {
          OR: [
            { status: 'PENDING', updatedAt: { lte: pendingCutoff } },
            { status: 'PROCESSING', startedAt: { lte: processingCutoff } },
            { status: 'PROCESSING', startedAt: null, updatedAt: { lte: processingCutoff } },
          ],
        },
        orderBy: { updatedAt: 'asc' },
        take: args.batchSize,
      });
      const report = newReport('stale-jobs');
      for (const row of rows) {
        const view = await workflowView(row, args.stuckAttempts ?? DEFAULT_STUCK_ATTEMPTS);
        const actions: RecoveryAction[] = [];
        let errorMessage = `recovered: workflow ${view.status}`;
        if (view.running && !(view.stuck && row.status === 'PROCESSING')) {
          record(report, itemOf(row, ['left-running'], `${row.status}; workflow RUNNING`));
          continue;
        }
        if (view.stuck) {
          // The run cannot finish by itself soon: end it, so its result can never land on a re-run's row.
          errorMessage = storableText(`stuck: ${view.stuck}`, 1000);
          actions.push('stuck');
          try {
            await client.workflow.getHandle(jobWorkflowId(row.jobType, row.targetId), view.runId).terminate(`recovery: ${errorMessage}`);
            actions.push('terminated');
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) throw err; // closed meanwhile: fail the row all the same
          }
        }
        const changed = await db.$transaction(async (tx) => {
          const r = await failJobAsRead(tx, row, errorMessage);
          if (r.changed) await hooksOf(targets, row.jobType).mirror?.(tx, row.targetId, 'FAILED');
          return r.changed;
        });
        if (!changed) {
          record(report, itemOf(row, [...actions, 'changed-concurrently'], `${row.status}; workflow ${view.status}`));
          continue;
        }
        actions.push('marked-failed');
        await requeueAndStart(row.jobId, args.maxRetries, actions);
        // A job that stays FAILED may take its target with it (e.g. a live commit row, SAN-10).
        if (!actions.includes('requeued')) await hooksOf(targets, row.jobType).giveUp?.(db, row.targetId, errorMessage);
        record(report, itemOf(row, actions, `${row.status} → ${errorMessage}`));
      }
      activityLog.info('recovery pass', { rule: report.rule, examined: report.examined, counts: report.counts });
      return report;
    },

    /**
     * SAN-6 rule 1, reverse case: a job workflow still RUNNING (started longer ago than
     * `processingStaleMinutes`) whose row is terminal or missing can only do work nobody will see
     * (its result write is guarded and would be a no-op), so it is terminated with the reason.
     * Idempotency: terminating a closed run is skipped. Retryable.
     */
    async terminateOrphanRuns(args: OrphanRunsArgs): Promise<RecoveryReport> {
      const startedBefore = minutesAgo(args.processingStaleMinutes).toISOString();
      const types = jobTypes.map((t) => `'${t}'`).join(', ');
      const query = `ExecutionStatus = 'Running' AND TaskQueue = '${args.jobsTaskQueue}' AND JobType IN (${types}) AND StartTime < '${startedBefore}'`;
      const report = newReport('stale-jobs');
      let seen = 0;
      for await (const wf of client.workflow.list({ query })) {
        if (seen++ >= args.batchSize) break;
        const jobId = typeof wf.memo?.jobId === 'string' ? wf.memo.jobId : null;
        const row = jobId ? await db.asyncJob.findUnique({ where: { jobId } }) : null;
        if (row && !ASYNC_JOB_STATES.isTerminal(row.status)) continue;
        const jobType = (wf.typedSearchAttributes.get(SA_JOB_TYPE) as JobType | undefined) ?? row?.jobType;
        if (!jobType) continue; // not a job workflow
        const targetId = wf.typedSearchAttributes.get(SA_TARGET_ID) ?? row?.targetId ?? '';
        const reason = `recovery: job ${jobId ?? '?'} row ${row ? row.status : 'missing'}`;
        const actions: RecoveryAction[] = [];
        try {
          await client.workflow.getHandle(wf.workflowId, wf.runId).terminate(reason);
          actions.push('terminated');
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          actions.push('not-found'); // closed between list and terminate
        }
        record(report, { jobId, jobType, targetId, workflowId: wf.workflowId, actions, detail: reason });
      }
      activityLog.info('recovery pass', { rule: 'orphan-runs', examined: report.examined, counts: report.counts });
      return report;
    },

    /**
     * SAN-6 rule 2: FAILED jobs (the latest of their target and type) under `maxRetries` are
     * re-enqueued (FAILED → PENDING, retry_count + 1) and started; those at the limit are reported
     * as `limit-reached` and left FAILED. Idempotency: the guarded re-enqueue update. Retryable.
     */
    async retryFailedJobs(args: { maxRetries: number; batchSize: number }): Promise<RecoveryReport> {
      type FailedRow = Pick<AsyncJob, 'jobId' | 'jobType' | 'targetId' | 'retryCount'>;
      const latestFailed = (underLimit: boolean) => db.$queryRaw<FailedRow[]>`
        SELECT j.job_id AS "jobId", j.job_type AS "jobType", j.target_id AS "targetId", j.retry_count AS "retryCount"
          FROM async_jobs j
         WHERE j.status = 'FAILED'
           AND (j.retry_count < ${args.maxRetries}) = ${underLimit}
           AND NOT EXISTS (SELECT 1 FROM async_jobs o
                            WHERE o.target_id = j.target_id AND o.job_type = j.job_type AND o.job_id <> j.job_id
                              AND (o.status IN ('PENDING', 'PROCESSING') OR o.created_at > j.created_at))
         ORDER BY j.updated_at
         LIMIT ${args.batchSize}`;
      const report = newReport('failed-jobs');
      for (const row of await latestFailed(true)) {
        const actions: RecoveryAction[] = [];
        await requeueAndStart(row.jobId, args.maxRetries, actions);
        record(report, itemOf(row, actions, `retry ${row.retryCount + 1} of ${args.maxRetries}`));
      }
      for (const row of await latestFailed(false)) {
        record(report, itemOf(row, ['limit-reached'], `retry_count ${row.retryCount} of ${args.maxRetries}`));
      }
      activityLog.info('recovery pass', { rule: report.rule, examined: report.examined, counts: report.counts });
      return report;
    },

    /**
     * SAN-6 single retry (operator path without the API, e.g. `temporal workflow start`): same
     * rule and limit as `POST /async-jobs/{jobId}/retry`. Idempotency: the guarded update.
     */
    async retryJob(args: { jobId: string; maxRetries: number }): Promise<RecoveryReport> {
      const report = newReport('retry-job');
      const actions: RecoveryAction[] = [];
      const r = await requeueFailedJob(db, args.jobId, args.maxRetries, targets);
      actions.push(r.outcome);
      if (r.outcome === 'not-found') return report;
      if (r.outcome === 'requeued') await startJob(starter, r.job, actions);
      record(report, itemOf(r.job, actions, `retry_count ${r.job.retryCount} of ${args.maxRetries}`));
      return report;
    },
  };
}

/** Type of the recovery activities, for `proxyActivities` in workflows. */
export type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;
