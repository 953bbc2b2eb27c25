/**
 * Worker of a task queue a family owns (DC-2, manifest `ownQueues`): that queue's activities only,
 * with its own concurrency, so the family's dependency cannot starve any other queue. Each such
 * queue has its own entry point (`src/workers/<queue>.ts`) that runs this worker in a process.
 */
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../config';
import { ownQueue } from '../families';
import { ownTaskQueue } from '../core/contracts';
import type { WorkerTelemetry } from '../telemetry/temporal';
import { temporalDataConverter } from '../crypto/payload-codec';
import { workerInterceptorOptions } from './run';

/** Dependencies of {@link createOwnQueueWorker}. */
export interface OwnQueueWorkerDeps {
  config: Config;
  db: PrismaClient;
  connection: NativeConnection;
  /** Replaces the declared activities (tests wrap or fake a dependency). */
  activities?: object;
  /** Tracing interceptors (issue 7 §2); none when absent. */
  telemetry?: WorkerTelemetry;
}

/**
 * Builds (does not run) the worker of family queue `name` on `<prefix><name>`.
 * @throws Error when no family declares the queue.
 */
export async function createOwnQueueWorker(name: string, deps: OwnQueueWorkerDeps): Promise<Worker> {
  const decl = ownQueue(name);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: ownTaskQueue(name, deps.config.temporal.taskQueuePrefix),
    activities: deps.activities ?? decl.activities({ config: deps.config, db: deps.db }),
    maxConcurrentActivityTaskExecutions: decl.concurrency?.(deps.config) ?? 8,
    shutdownGraceTime: '10s',
    dataConverter: temporalDataConverter(deps.config.temporal.payloadCodec), // AR-6
    ...workerInterceptorOptions(deps.db, deps.telemetry, 'none'),
  });
}
