/**
 * Entry point of the `ai` task queue (DC-2): AI runtime activities only, so a slow or failing AI
 * provider cannot starve projection or GitHub work.
 */
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import { loadConfig, type Config } from '../config';
import { createAiActivities } from '../activities/ai';
import { createAiRuntime } from '../ai';
import type { AiRuntime } from '../ai/types';
import { createLogger, temporalLogger } from '../log';
import { openDatabase } from '../runtime';
import { taskQueues } from '../shared/contracts';

/** Dependencies of {@link createAiWorker}; tests may inject a wrapped {@link AiRuntime}. */
export interface AiWorkerDeps {
  config: Config;
  db: PrismaClient;
  connection: NativeConnection;
  ai?: AiRuntime;
}

/** Builds (does not run) the `ai` worker; concurrency from AI_ACTIVITY_CONCURRENCY. */
export async function createAiWorker(deps: AiWorkerDeps): Promise<Worker> {
  const queues = taskQueues(deps.config.temporal.taskQueuePrefix);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: queues.ai,
    activities: createAiActivities({ ai: deps.ai ?? createAiRuntime(deps.config.ai), db: deps.db }),
    maxConcurrentActivityTaskExecutions: deps.config.ai.activityConcurrency,
    shutdownGraceTime: '10s',
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker-ai');
  Runtime.install({ logger: temporalLogger(log) });
  const db = openDatabase(config);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  try {
    const worker = await createAiWorker({ config, db, connection });
    log.info({ taskQueue: worker.options.taskQueue, provider: config.ai.provider }, 'ai worker running');
    await worker.run();
    log.info('ai worker stopped');
  } finally {
    await connection.close();
    await db.$disconnect();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
