/** Shared process wiring of the activity-only worker entry points (`ai`, `github`). */
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import { loadConfig, type Config } from '../config';
import { createLogger, temporalLogger } from '../log';
import { openDatabase } from '../runtime';
import { dbFailureInterceptor } from '../core/db-failures';

/** What an entry point's worker factory receives. */
export interface WorkerResources {
  config: Config;
  db: PrismaClient;
  connection: NativeConnection;
}

/**
 * Runs one worker process: config (fail fast), pino with the Temporal SDK's logs routed into it,
 * one Prisma client and one native connection; runs the worker until SIGINT/SIGTERM (the SDK's
 * graceful shutdown: running activities get `shutdownGraceTime`), then closes everything.
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
    Runtime.install({ logger: temporalLogger(log) });
    const db = openDatabase(config);
    const connection = await NativeConnection.connect({ address: config.temporal.address });
    try {
      const worker = await build({ config, db, connection });
      log.info({ taskQueue: worker.options.taskQueue, ...describe(config) }, `${component} running`);
      await worker.run();
      log.info(`${component} stopped`);
    } finally {
      await connection.close();
      await db.$disconnect();
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
