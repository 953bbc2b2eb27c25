/**
 * API entry point (`npm run api`): the app with the families' routes and target hooks, listening;
 * closes cleanly on SIGINT/SIGTERM (in-flight requests finish).
 */
import { buildApp } from './api/app';
import { openDatabase, openTemporalClient } from './core/connections';
import { taskQueues } from './core/contracts';
import { createJobStarter, FAMILY_API, loadConfig } from './families';
import { createLogger } from './log';
import { installProcessTelemetry } from './telemetry/process';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'api');
  const tracing = installProcessTelemetry(config, 'api');
  const db = openDatabase(config);
  const client = await openTemporalClient(config);
  const starter = createJobStarter(client, taskQueues(config.temporal.taskQueuePrefix));
  const app = await buildApp({ ...FAMILY_API, config, db, starter, temporal: client, logger });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await app.close();
    await client.connection.close();
    await db.$disconnect();
    await tracing.shutdown();
    clearTimeout(force);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.api.host, port: config.api.port });
  logger.info({ host: config.api.host, port: config.api.port }, 'api ready');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
