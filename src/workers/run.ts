/** Shared process wiring of the worker entry points: telemetry (all), and the whole process of `ai` and `github`. */
import { NativeConnection, Runtime, type Worker, type WorkerOptions } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../config';
import { createLogger, temporalLogger } from '../log';
import { openDatabase, temporalConnectionOptions } from '../runtime';
import { startMetricsServer, type MetricsServer } from '../telemetry/metrics-server';
import { installProcessTelemetry } from '../telemetry/process';
import { runtimeTelemetryOptions, telemetryWorkerOptions, workerTelemetry, type WorkerTelemetry } from '../telemetry/temporal';
import type { Tracing } from '../telemetry/tracing';
import { dbFailureInterceptor } from '../core/db-failures';

/** What an entry point's worker factory receives. */
export interface WorkerResources {
  config: Config;
  db: PrismaClient;
  connection: NativeConnection;
  /** Tracing interceptors and sinks (issue 7 §2). */
  telemetry: WorkerTelemetry;
}

/** A worker process's telemetry: what its workers get, and what to close at shutdown. */
export interface WorkerProcessTelemetry {
  tracing: Tracing;
  /** Pass to createJobsWorker / createAiWorker / createGithubWorker. */
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
 * Runs one worker process: config (fail fast), pino with the Temporal SDK's logs routed into it,
 * telemetry ({@link startWorkerTelemetry}), one Prisma client and one native connection; runs the
 * worker until SIGINT/SIGTERM (the SDK's graceful shutdown: running activities get
 * `shutdownGraceTime`), then closes everything.
 * Exits the process with 1 on a start-up error.
 */
export function runWorkerProcess(
  component: string,
  build: (r: WorkerResources) => Promise<Worker>,
  describe: (config: Config) => object = () => ({}),
): void {
  const main = async () => {
    const config = loadConfig();
    const log = createLogger(config.logLevel, component);
    const telemetry = await startWorkerTelemetry(config, component, log);
    const db = openDatabase(config);
    const connection = await NativeConnection.connect(temporalConnectionOptions(config));
    try {
      const worker = await build({ config, db, connection, telemetry: telemetry.worker });
      log.info({ taskQueue: worker.options.taskQueue, ...describe(config) }, `${component} running`);
      await worker.run();
      log.info(`${component} stopped`);
    } finally {
      await connection.close();
      await db.$disconnect();
      await telemetry.close();
    }
  };
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * Activity interceptors of every worker (SAN-4): deterministic database rejections become the
 * non-retryable PROJECTION_REJECTED, database outages are waited out inside the attempt
 * (src/core/db-failures.ts), probing `db` with `SELECT 1`.
 */
export function workerInterceptors(db: PrismaClient) {
  return { activity: [dbFailureInterceptor({ probe: () => db.$queryRaw`SELECT 1` })] };
}

/**
 * `interceptors` and `sinks` of every worker: the tracing interceptors (outermost, so a span covers
 * the whole attempt) when `telemetry` is given, then {@link workerInterceptors}. `workflows`: how
 * the worker loads workflows (`path`, a prebuilt `bundle`, or `none` for activity-only workers).
 */
export function workerInterceptorOptions(
  db: PrismaClient,
  telemetry: WorkerTelemetry | undefined,
  workflows: 'path' | 'bundle' | 'none',
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const traced = telemetryWorkerOptions(telemetry, workflows);
  return {
    ...traced,
    interceptors: { ...traced.interceptors, activity: [...(traced.interceptors?.activity ?? []), ...workerInterceptors(db).activity] },
  };
}
