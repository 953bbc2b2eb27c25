/**
 * Entry point of the `ai` task queue (DC-2): every family's AI provider activities only, so a slow
 * or failing AI provider cannot starve projection or GitHub work.
 */
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../config';
import { familyActivities } from '../families';
import { createAiProvider } from '../ai';
import type { AiProvider } from '../ai/types';
import { runWorkerProcess, workerInterceptorOptions } from './run';
import { taskQueues } from '../core/contracts';
import { temporalDataConverter } from '../crypto/payload-codec';
import type { WorkerTelemetry } from '../telemetry/temporal';

/** Dependencies of {@link createAiWorker}; tests may inject a wrapped {@link AiProvider}. */
export interface AiWorkerDeps {
  config: Config;
  db: PrismaClient;
  connection: NativeConnection;
  ai?: AiProvider;
  /** Tracing interceptors (issue 7 §2); none when absent. */
  telemetry?: WorkerTelemetry;
}

/** Builds (does not run) the `ai` worker; concurrency from AI_ACTIVITY_CONCURRENCY. */
export async function createAiWorker(deps: AiWorkerDeps): Promise<Worker> {
  const queues = taskQueues(deps.config.temporal.taskQueuePrefix);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    dataConverter: temporalDataConverter(deps.config.temporal.payloadCodec), // AR-6
    taskQueue: queues.ai,
    activities: familyActivities('ai', { config: deps.config, db: deps.db, ai: deps.ai ?? createAiProvider(deps.config.ai) }),
    maxConcurrentActivityTaskExecutions: deps.config.ai.activityConcurrency,
    shutdownGraceTime: '10s',
    ...workerInterceptorOptions(deps.db, deps.telemetry, 'none'),
  });
}

if (require.main === module) {
  runWorkerProcess('worker-ai', (r) => createAiWorker(r), (config) => ({ provider: config.ai.provider }));
}
