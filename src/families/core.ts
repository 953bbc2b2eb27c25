/**
 * The core's declaration, in the same shape as a family's: its task queues (DC-2) — `jobs` (every
 * job workflow and the projection activities), `maintenance` (reconcile passes, in the `jobs`
 * process, never behind job work), `ai` and `github` (shared by the families whose jobs call an AI
 * provider or GitHub; every job workflow's input names them) — and its Schedules (SAN-4, SAN-6,
 * AR-7/PO-1). Families add activities to these queues through their manifests' `activities`.
 */
import { createIdempotencyPurgeActivities } from '../activities/core/idempotency-purge';
import { createJobActivities } from '../activities/core/jobs';
import { createRecoveryActivities } from '../activities/core/recovery';
import { createWebhookActivities } from '../activities/core/webhooks';
import { createAiProvider } from '../ai';
import { CORE_CONFIG, type CoreConfig } from '../config';
import { temporalClient } from '../core/connections';
import { taskQueues, type TaskQueues } from '../core/contracts';
import { createTemporalJobStarter } from '../core/starter';
import { tokenBoxFromConfig } from '../crypto/token-box';
import { githubClientFactoryFromConfig } from '../github/client';
import type { ReconcileInput } from '../workflows/core/maintenance';
import type { RecoveryInput } from '../workflows/core/recovery';
import type {
  AiQueueContext, CoreQueueDecl, GithubQueueContext, JobsQueueContext, QueueBase, ScheduleDecl, WorkflowName,
} from './manifest';

/** The `jobs` and `maintenance` queues' context: the job starter over the process's client. */
function jobsContext({ config, db, client, registry }: QueueBase): JobsQueueContext {
  const starter = createTemporalJobStarter(client, taskQueues(config.temporal.taskQueuePrefix), registry.workflowTypes);
  return { config, db, client, starter };
}

const jobs: CoreQueueDecl<JobsQueueContext> = {
  name: 'jobs',
  workflows: true,
  summary: 'every job workflow and the projection activities',
  context: jobsContext,
  activities: ({ db, client, starter }, base) => {
    const { targets, workflowTypes, jobTypes } = base.registry;
    // Companion jobs start from this worker's local activities through a client on the worker's own
    // connection with eager start, so their first workflow task comes straight back to this worker.
    const eager = createTemporalJobStarter(temporalClient(base.connection, base.config.temporal), taskQueues(base.config.temporal.taskQueuePrefix), workflowTypes, { eager: true });
    const { startJobs } = createJobActivities({ db, starter: eager, client, targets });
    const { attemptWebhookDelivery, failWebhookDelivery } = createWebhookActivities({ config: base.config, db });
    return {
      ...createJobActivities({ db, starter, client, targets }),
      startJobs,
      attemptWebhookDelivery,
      failWebhookDelivery,
      ...createRecoveryActivities({ db, client, starter, targets, jobTypes }), // SAN-6
    };
  },
};

const maintenance: CoreQueueDecl<JobsQueueContext> = {
  name: 'maintenance',
  process: 'jobs',
  workflows: true,
  summary: 'the reconcile passes (SAN-4), never behind job work',
  // A few passes at a time: they are batch work over the database.
  activityConcurrency: { of: () => 4 },
  workflowTaskConcurrency: 4,
  context: jobsContext,
  activities: ({ db, client, starter }, base) => {
    const { startStalePendingJobs, failClosedRuns } = createJobActivities({ db, starter, client, targets: base.registry.targets });
    const jobsTaskQueue = taskQueues(base.config.temporal.taskQueuePrefix).jobs;
    const { relayWebhookDeliveries } = createWebhookActivities({ config: base.config, db, client, jobsTaskQueue });
    return { startStalePendingJobs, failClosedRuns, relayWebhookDeliveries, ...createIdempotencyPurgeActivities({ db }) };
  },
};

const ai: CoreQueueDecl<AiQueueContext> = {
  name: 'ai',
  summary: 'AI provider calls of every family',
  activityConcurrency: { env: 'AI_ACTIVITY_CONCURRENCY', of: (c) => c.ai.activityConcurrency },
  context: ({ config, db, provided }) => ({ config, db, ai: provided.ai ?? createAiProvider(config.ai) }),
  describe: (c) => ({ provider: c.ai.provider }),
};

const github: CoreQueueDecl<GithubQueueContext> = {
  name: 'github',
  summary: 'GitHub API calls (SAN-10, SAN-12)',
  activityConcurrency: { env: 'GITHUB_ACTIVITY_CONCURRENCY', of: (c) => c.github.activityConcurrency },
  context: ({ config, db, provided }) => ({
    config,
    db,
    tokens: tokenBoxFromConfig(config.github),
    github: provided.github ?? githubClientFactoryFromConfig(config),
  }),
  describe: (c) => ({ apiUrl: c.github.apiUrl }),
};

/** SAN-4 input of a reconcile pass, from the RECONCILE_* config. */
export function reconcileInput(config: CoreConfig, queues: TaskQueues): ReconcileInput {
  return { queues, graceSeconds: config.reconcile.graceSeconds, closedLookbackSeconds: config.reconcile.closedLookbackSeconds };
}

/** SAN-6 input of a recovery rule, from the RECOVERY_* config. */
export function recoveryInput(config: CoreConfig, queues: TaskQueues): RecoveryInput {
  const r = config.recovery;
  return {
    queues,
    pendingStaleMinutes: r.pendingStaleMinutes,
    processingStaleMinutes: r.processingStaleMinutes,
    maxRetries: r.maxRetries,
    batchSize: r.batchSize,
    stuckAttempts: r.stuckAttempts,
  };
}

/** A SAN-4-style reconcile pass: every RECONCILE_INTERVAL_SECONDS on the `maintenance` queue, with {@link reconcileInput}. */
export function reconcileSchedule(name: string, workflow: WorkflowName): ScheduleDecl {
  return {
    name,
    workflow,
    queue: 'maintenance',
    every: (c) => `${c.reconcile.intervalSeconds}s`,
    input: (c, queues) => [reconcileInput(c, queues)],
  };
}

/** A SAN-6 recovery rule: every RECOVERY_INTERVAL_MINUTES on the `jobs` queue, with {@link recoveryInput}. */
export function recoverySchedule(name: string, workflow: WorkflowName): ScheduleDecl {
  return {
    name,
    workflow,
    queue: 'jobs',
    every: (c) => `${c.recovery.intervalMinutes}m`,
    input: (c, queues) => [recoveryInput(c, queues)],
    catchupWindow: '10m',
  };
}

/** The core's declaration: its config section, queues and Schedules. */
export const core = {
  config: CORE_CONFIG,
  queues: [jobs, maintenance, ai, github] as readonly CoreQueueDecl<unknown>[],
  schedules: [
    reconcileSchedule('reconcile-pending-jobs', 'reconcilePendingJobsWorkflow'),
    recoverySchedule('recovery-stale-jobs', 'recoverStaleJobsWorkflow'),
    recoverySchedule('recovery-failed-jobs', 'retryFailedJobsWorkflow'),
    {
      // AR-7/PO-1: expired Idempotency-Key records.
      name: 'purge-idempotency-records',
      workflow: 'purgeIdempotencyRecordsWorkflow',
      queue: 'maintenance',
      every: (c) => `${c.idempotency.purgeIntervalMinutes}m`,
      input: () => [{}],
      catchupWindow: '10m',
    },
    {
      // Completion webhooks: starts the delivery workflows of the outbox's PENDING deliveries.
      name: 'relay-webhook-deliveries',
      workflow: 'relayWebhookDeliveriesWorkflow',
      queue: 'maintenance',
      every: (c) => `${c.webhooks.relayIntervalSeconds}s`,
      input: () => [{}],
    },
  ] as readonly ScheduleDecl[],
};
