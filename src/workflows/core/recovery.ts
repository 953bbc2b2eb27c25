/**
 * SAN-6 recovery workflows, one per rule, each run by its own Temporal Schedule (every
 * RECOVERY_INTERVAL_MINUTES, created at `jobs` worker start-up) and safe to run by hand, twice or
 * concurrently: the activities only make guarded, idempotent writes. Each returns its report.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RecoveryActivities, RecoveryReport } from '../../activities/core/recovery';
import type { TaskQueues } from '../../core/contracts';
import { DEFAULT_MAX_RETRIES } from '../../core/job-state';
import { MAINTENANCE_RETRY } from '../../core/activity-options';

/** Input of every recovery workflow (the schedules pass the configured values); ages in minutes. */
export interface RecoveryInput {
  queues: TaskQueues;
  pendingStaleMinutes: number;
  processingStaleMinutes: number;
  maxRetries: number;
  batchSize: number;
  /** RECOVERY_STUCK_ATTEMPTS: a running job's pending activity past this attempt with a failure is `stuck` (default 5). */
  stuckAttempts?: number;
}

/** Recovery activities on the `jobs` queue (10 min per pass, MAINTENANCE_RETRY). */
export function recoveryActivities(queues: Pick<TaskQueues, 'jobs'>) {
  return proxyActivities<RecoveryActivities>({
    taskQueue: queues.jobs,
    startToCloseTimeout: '10m',
    retry: MAINTENANCE_RETRY,
  });
}

/**
 * SAN-6 rule 1: stale PENDING/PROCESSING jobs whose workflow is not running → FAILED
 * (`recovered: workflow <status>`) and re-enqueued; a stale PROCESSING job whose run keeps failing an
 * activity → `stuck`: run terminated, FAILED with the last failure, re-enqueued; then running job workflows whose row is terminal
 * or missing are terminated. Schedule `recovery-stale-jobs`.
 */
export async function recoverStaleJobsWorkflow(input: RecoveryInput): Promise<RecoveryReport> {
  const acts = recoveryActivities(input.queues);
  const stale = await acts.recoverStaleJobs({
    pendingStaleMinutes: input.pendingStaleMinutes,
    processingStaleMinutes: input.processingStaleMinutes,
    maxRetries: input.maxRetries,
    batchSize: input.batchSize,
    ...(input.stuckAttempts !== undefined ? { stuckAttempts: input.stuckAttempts } : {}),
  });
  const orphans = await acts.terminateOrphanRuns({
    jobsTaskQueue: input.queues.jobs,
    processingStaleMinutes: input.processingStaleMinutes,
    batchSize: input.batchSize,
  });
  const counts = { ...stale.counts };
  for (const [action, n] of Object.entries(orphans.counts) as [keyof RecoveryReport['counts'], number][]) {
    counts[action] = (counts[action] ?? 0) + n;
  }
  return { rule: 'stale-jobs', examined: stale.examined + orphans.examined, counts, items: [...stale.items, ...orphans.items] };
}

/** SAN-6 rule 2: FAILED jobs re-enqueued up to `maxRetries` re-runs in all. Schedule `recovery-failed-jobs`. */
export async function retryFailedJobsWorkflow(input: RecoveryInput): Promise<RecoveryReport> {
  return recoveryActivities(input.queues).retryFailedJobs({ maxRetries: input.maxRetries, batchSize: input.batchSize });
}

/** Input of {@link retryJobWorkflow}; `queues` defaults to this run's task queue, `maxRetries` to 3. */
export interface RetryJobInput {
  jobId: string;
  queues?: Pick<TaskQueues, 'jobs'>;
  maxRetries?: number;
}

/**
 * SAN-6 retry of one FAILED job from the `temporal` CLI (same rule and limit as
 * `POST /async-jobs/{jobId}/retry`): FAILED → PENDING with retry_count + 1, then its workflow starts.
 * `temporal workflow start --type retryJobWorkflow --task-queue jobs --input '{"jobId":"…"}'`.
 */
export async function retryJobWorkflow(input: RetryJobInput): Promise<RecoveryReport> {
  const queues = input.queues ?? { jobs: workflowInfo().taskQueue };
  return recoveryActivities(queues).retryJob({ jobId: input.jobId, maxRetries: input.maxRetries ?? DEFAULT_MAX_RETRIES });
}
