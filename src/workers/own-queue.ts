/**
 * Worker of a task queue a family owns (DC-2, manifest `ownQueues`): that queue's activities only,
 * with its own concurrency, so the family's dependency cannot starve any other queue. Each such
 * queue has its own entry point (`src/workers/<queue>.ts`) that runs this worker in a process.
 */
import { type NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import type { Client } from '@temporalio/client';
import { ensureSearchAttributes } from '../core/search-attributes';
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
  /** Prebuilt workflow bundle for a queue that runs workflows (tests build it once); else `src/workflows` is bundled. */
  workflowBundle?: WorkflowBundleWithSourceMap;
}

/**
 * Builds (does not run) the worker of family queue `name` on `<prefix><name>`.
 * @throws Error when no family declares the queue.
 */
export async function createOwnQueueWorker(name: string, deps: OwnQueueWorkerDeps): Promise<Worker> {
  const decl = ownQueue(name);
  // A queue that also runs its family's workflows (manifest `workflows`) loads the workflow bundle.
  const workflows: 'path' | 'bundle' | 'none' = decl.workflows ? (deps.workflowBundle ? 'bundle' : 'path') : 'none';
  const workflowOptions =
    workflows === 'bundle' ? { workflowBundle: deps.workflowBundle } : workflows === 'path' ? { workflowsPath: require.resolve('../workflows') } : {};
  return Worker.create({
    ...workflowOptions,
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: ownTaskQueue(name, deps.config.temporal.taskQueuePrefix),
    activities: deps.activities ?? decl.activities({ config: deps.config, db: deps.db }),
    maxConcurrentActivityTaskExecutions: decl.concurrency?.(deps.config) ?? 8,
    shutdownGraceTime: '10s',
    dataConverter: temporalDataConverter(deps.config.temporal.payloadCodec), // AR-6
    ...workerInterceptorOptions(deps.db, deps.telemetry, workflows),
  });
}

/**
 * Creates (idempotently) the Schedules family queue `name` declares (`ownQueues[].schedules`) with
 * `client`, after making sure the search attributes its workflows set are registered. Returns the
 * schedule IDs (none when the queue declares none).
 */
export async function ensureOwnQueueSchedules(name: string, client: Client, config: Config): Promise<string[]> {
  const decl = ownQueue(name);
  if (!decl.schedules) return [];
  await ensureSearchAttributes(client.connection, config.temporal.namespace);
  return decl.schedules(client, config);
}
