/**
 * Entry point of the `jobs` task queue (DC-2): every job workflow, the core's projection and
 * recovery activities and every family's `jobs` activities (src/families); and, in the same
 * process, the `maintenance` queue's worker (the SAN-4 reconciler), so a backlog of job work never
 * delays a reconcile pass. Creates the reconciler and recovery schedules at start-up.
 */
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { clientInterceptors } from '../telemetry/temporal';
import type { PrismaClient } from '@prisma/client';
import { loadConfig, type Config } from '../config';
import { createJobActivities } from '../activities/core/jobs';
import { createRecoveryActivities } from '../activities/core/recovery';
import { createJobStarter, familyActivities, JOB_TYPES, TARGET_HOOKS } from '../families';
import { createLogger } from '../log';
import { openDatabase, openTemporalClient, temporalConnectionOptions } from '../runtime';
import { maintenanceTaskQueue, taskQueues } from '../core/contracts';
import { temporalDataConverter } from '../crypto/payload-codec';
import { ensureSearchAttributes } from '../dev/temporal-server';
import { ensureFamilyReconcileSchedules, ensureIdempotencyPurgeSchedule, ensureReconcileSchedule, ensureRecoverySchedules } from './schedules';
import { createIdempotencyPurgeActivities } from '../activities/core/idempotency-purge';
import { startWorkerTelemetry, workerInterceptorOptions } from './run';
import type { WorkerTelemetry } from '../telemetry/temporal';

/** Dependencies of {@link createJobsWorker}; tests pass a prebuilt workflow bundle. */
export interface JobsWorkerDeps {
  config: Config;
  db: PrismaClient;
  client: Client;
  connection: NativeConnection;
  /** A prebuilt bundle; with `telemetry` it must include WORKFLOW_INTERCEPTOR_MODULES (src/telemetry/temporal.ts). */
  workflowBundle?: WorkflowBundleOption;
  /** Tracing interceptors and the workflow-span sink (issue 7 §2); none when absent. */
  telemetry?: WorkerTelemetry;
}

/** Builds (does not run) the `jobs` worker. */
export async function createJobsWorker(deps: JobsWorkerDeps): Promise<Worker> {
  const queues = taskQueues(deps.config.temporal.taskQueuePrefix);
  const starter = createJobStarter(deps.client, queues);
  const recovery = createRecoveryActivities({ db: deps.db, client: deps.client, starter, targets: TARGET_HOOKS, jobTypes: JOB_TYPES }); // SAN-6
  const families = familyActivities('jobs', { config: deps.config, db: deps.db, client: deps.client, starter });
  // Companion jobs (issue 7 §1 (a)) start from this worker's local activities: through a client on
  // the worker's own NativeConnection, with eager start, their first workflow task comes straight
  // back to this worker instead of being dispatched through the task queue.
  const eagerClient = new Client({ connection: deps.connection, namespace: deps.config.temporal.namespace, interceptors: clientInterceptors(), dataConverter: temporalDataConverter(deps.config.temporal.payloadCodec) });
  const core = createJobActivities({ db: deps.db, starter, client: deps.client, targets: TARGET_HOOKS });
  const { startJobs } = createJobActivities({ db: deps.db, starter: createJobStarter(eagerClient, queues, { eager: true }), client: deps.client, targets: TARGET_HOOKS });
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    dataConverter: temporalDataConverter(deps.config.temporal.payloadCodec), // AR-6
    taskQueue: queues.jobs,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: { ...core, startJobs, ...recovery, ...families },
    ...workerInterceptorOptions(deps.db, deps.telemetry, deps.workflowBundle ? 'bundle' : 'path'),
    shutdownGraceTime: '10s',
  });
}

/**
 * Builds (does not run) the `maintenance` worker: the reconciler workflows and their activities
 * (`startStalePendingJobs`, `failClosedRuns`, `purgeIdempotencyRecords`, the families' `maintenance` activities) on
 * `<prefix>maintenance`, a few at a time.
 */
export async function createMaintenanceWorker(deps: JobsWorkerDeps): Promise<Worker> {
  const queues = taskQueues(deps.config.temporal.taskQueuePrefix);
  const starter = createJobStarter(deps.client, queues);
  const { startStalePendingJobs, failClosedRuns } = createJobActivities({ db: deps.db, starter, client: deps.client, targets: TARGET_HOOKS });
  const families = familyActivities('maintenance', { config: deps.config, db: deps.db, client: deps.client, starter });
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    dataConverter: temporalDataConverter(deps.config.temporal.payloadCodec), // AR-6
    taskQueue: maintenanceTaskQueue(deps.config.temporal.taskQueuePrefix),
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: { startStalePendingJobs, failClosedRuns, ...createIdempotencyPurgeActivities({ db: deps.db }), ...families },
    maxConcurrentActivityTaskExecutions: 4,
    maxConcurrentWorkflowTaskExecutions: 4,
    ...workerInterceptorOptions(deps.db, deps.telemetry, deps.workflowBundle ? 'bundle' : 'path'),
    shutdownGraceTime: '10s',
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker-jobs');
  const telemetry = await startWorkerTelemetry(config, 'worker-jobs', log);
  const db = openDatabase(config);
  const client = await openTemporalClient(config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  try {
    await ensureSearchAttributes(client.connection, config.temporal.namespace);
    if (config.reconcile.schedulesEnabled) {
      const id = await ensureReconcileSchedule(client, config, taskQueues(config.temporal.taskQueuePrefix));
      const familyIds = await ensureFamilyReconcileSchedules(client, config, taskQueues(config.temporal.taskQueuePrefix));
      log.info({ scheduleId: id, familyScheduleIds: familyIds }, 'reconcile schedules ready');
      const recoveryIds = await ensureRecoverySchedules(client, config, taskQueues(config.temporal.taskQueuePrefix));
      log.info({ scheduleIds: recoveryIds }, 'recovery schedules ready');
      log.info({ scheduleId: await ensureIdempotencyPurgeSchedule(client, config) }, 'idempotency purge schedule ready');
    }
    const worker = await createJobsWorker({ config, db, client, connection, telemetry: telemetry.worker });
    const maintenance = await createMaintenanceWorker({ config, db, client, connection, telemetry: telemetry.worker });
    log.info({ taskQueues: [worker.options.taskQueue, maintenance.options.taskQueue] }, 'jobs worker running');
    // Both stop on SIGINT/SIGTERM; if one fails, the other is shut down too.
    const runs = [worker, maintenance].map((w) =>
      w.run().catch((err: unknown) => {
        for (const other of [worker, maintenance]) if (other !== w && other.getState() === 'RUNNING') other.shutdown();
        throw err;
      }),
    );
    await Promise.all(runs);
    log.info('jobs worker stopped');
  } finally {
    await connection.close();
    await client.connection.close();
    await db.$disconnect();
    await telemetry.close();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

