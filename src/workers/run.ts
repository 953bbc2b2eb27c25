/**
 * A worker process (DC-2): telemetry, one Prisma client, one Temporal client and one native
 * connection; the search attributes and the Schedules of its queues; one worker per queue, run
 * until SIGINT/SIGTERM.
 */
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createLogger, temporalLogger } from '../log';
import { openDatabase, openTemporalClient, temporalConnectionOptions } from '../core/connections';
import { ensureSearchAttributes } from '../core/search-attributes';
import { sealStoredSecrets, webhookSecretBoxFromConfig } from '../core/webhook-secrets';
import { loadConfig, processOf, queueDecl, schedulesOn, type Config } from '../families';
import { startMetricsServer, type MetricsServer } from '../telemetry/metrics-server';
import { installProcessTelemetry } from '../telemetry/process';
import { runtimeTelemetryOptions, workerTelemetry, type WorkerTelemetry } from '../telemetry/temporal';
import type { Tracing } from '../telemetry/tracing';
import { createQueueWorker } from './queue-worker';
import { ensureSchedules } from './schedules';
import { startWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher';
import { taskQueues } from '../core/contracts';

/** A worker process's telemetry: what its workers get, and what to close at shutdown. */
export interface WorkerProcessTelemetry {
  tracing: Tracing;
  /** Pass to createQueueWorker. */
  worker: WorkerTelemetry;
  /** The process's own metrics server, when METRICS_PORT is set. */
  metricsServer?: MetricsServer;
  /** Stops the metrics server and flushes pending spans. */
  close(): Promise<void>;
}

/**
 * For a worker process (before any NativeConnection): process telemetry, `Runtime.install` with
 * the SDK's logs routed into `log` and its Prometheus exporter on TEMPORAL_METRICS_BIND, and the
 * METRICS_PORT server. Throws when a port is taken (fail fast at start-up).
 */
export async function startWorkerTelemetry(config: Config, component: string, log: Logger): Promise<WorkerProcessTelemetry> {
  const tracing = installProcessTelemetry(config, component);
  const { temporalMetricsBind, metricsHost, metricsPort } = config.telemetry;
  Runtime.install({ logger: temporalLogger(log), ...runtimeTelemetryOptions(temporalMetricsBind) });
  if (temporalMetricsBind) log.info({ bindAddress: temporalMetricsBind }, 'temporal sdk metrics at /metrics');
  const metricsServer = metricsPort === undefined ? undefined : await startMetricsServer(metricsHost, metricsPort);
  if (metricsServer) log.info({ url: metricsServer.url }, 'metrics server listening');
  return {
    tracing,
    worker: workerTelemetry(tracing),
    ...(metricsServer ? { metricsServer } : {}),
    async close() {
      await metricsServer?.close();
      await tracing.shutdown();
    },
  };
}

/**
 * Runs the worker process serving `queue` (and every queue sharing its process, e.g. `jobs` with
 * `maintenance`): config (fail fast), pino with the Temporal SDK's logs routed into it, telemetry
 * ({@link startWorkerTelemetry}); registers the search attributes and ensures the Schedules of its
 * queues when it runs workflows or Schedules; runs one worker per queue until SIGINT/SIGTERM (the
 * SDK's graceful shutdown: running activities get their grace time; one worker failing shuts the
 * others down), then closes everything.
 * @throws Error when no manifest declares `queue`, or on a start-up error.
 */
export async function runWorkerProcess(queue: string): Promise<void> {
  const { name, queues } = processOf(queue);
  const component = `worker-${name}`;
  const config = loadConfig();
  const log = createLogger(config.logLevel, component);
  const telemetry = await startWorkerTelemetry(config, component, log);
  const db = openDatabase(config);
  const client = await openTemporalClient(config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  let dispatcher: WebhookDispatcher | undefined;
  try {
    const schedules = schedulesOn(queues);
    if (schedules.length > 0 || queues.some((q) => queueDecl(q).workflows)) {
      await ensureSearchAttributes(client.connection, config.temporal.namespace);
    }
    const scheduleIds = await ensureSchedules(client, config, schedules);
    if (scheduleIds.length > 0) log.info({ scheduleIds }, 'schedules ready');
    const workers: Worker[] = [];
    for (const q of queues) workers.push(await createQueueWorker(q, { config, db, client, connection, telemetry: telemetry.worker }));
    // Endpoint secrets stored in clear or under a retired key are sealed once, by the relay's process.
    if (queues.includes('maintenance')) {
      const report = await sealStoredSecrets(db, webhookSecretBoxFromConfig(config));
      if (report.sealed > 0 || report.unreadable > 0) log.info(report, 'webhook endpoint secrets sealed');
    }
    // Completion webhooks' fast path, next to the relay's queue (src/workers/webhook-dispatcher.ts).
    if (queues.includes('maintenance') && config.database.url && config.api.jobWait.feed !== 'poll') {
      dispatcher = startWebhookDispatcher({
        databaseUrl: config.database.url, db, client, config, jobsTaskQueue: taskQueues(config.temporal.taskQueuePrefix).jobs, log,
      });
    }
    const described = Object.assign({}, ...queues.map((q) => queueDecl(q).describe?.(config) ?? {})) as object;
    log.info({ taskQueues: workers.map((w) => w.options.taskQueue), ...described }, `${component} running`);
    await Promise.all(
      workers.map((w) =>
        w.run().catch((err: unknown) => {
          for (const other of workers) if (other !== w && other.getState() === 'RUNNING') other.shutdown();
          throw err;
        }),
      ),
    );
    log.info(`${component} stopped`);
  } finally {
    await dispatcher?.stop();
    await connection.close();
    await client.connection.close();
    await db.$disconnect();
    await telemetry.close();
  }
}
