/** A worker of one declared task queue (DC-2), built from its manifest through the core's `createWorker`. */
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker, WorkflowBundleOption } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import { ownTaskQueue } from '../core/contracts';
import { createWorker } from '../core/worker';
import { JOB_REGISTRY, queueActivities, queueDecl, type Config } from '../families';
import type { ProvidedResources } from '../families/manifest';
import type { WorkerTelemetry } from '../telemetry/temporal';

/** What {@link createQueueWorker} needs: the process's resources, and what a test replaces. */
export interface QueueWorkerDeps {
  config: Config;
  db: PrismaClient;
  client: Client;
  connection: NativeConnection;
  /** Tracing interceptors and the workflow-span sink; none when absent. */
  telemetry?: WorkerTelemetry;
  /** A prebuilt bundle for a queue that runs workflows (with `telemetry` it must include WORKFLOW_INTERCEPTOR_MODULES); else src/workflows is bundled. */
  workflowBundle?: WorkflowBundleOption;
  /** Replaces every activity of the queue (tests fake a dependency). */
  activities?: object;
  /** Resources used instead of the ones the queue's context would build (e.g. a wrapped AI runtime). */
  provided?: Partial<ProvidedResources>;
}

/**
 * Builds (does not run) the worker of queue `name` on `<prefix><name>`: its declared activities
 * (the declarer's and, on a shared queue, every family's), its workflows when it runs them, and its
 * concurrency.
 * @throws Error when no manifest declares the queue.
 */
export async function createQueueWorker(name: string, deps: QueueWorkerDeps): Promise<Worker> {
  const decl = queueDecl(name);
  const base = { config: deps.config, db: deps.db, client: deps.client, connection: deps.connection, registry: JOB_REGISTRY, provided: deps.provided ?? {} };
  const workflows = !decl.workflows ? 'none' : deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: require.resolve('../workflows') };
  return createWorker({
    connection: deps.connection,
    temporal: deps.config.temporal,
    taskQueue: ownTaskQueue(name, deps.config.temporal.taskQueuePrefix),
    activities: deps.activities ?? queueActivities(name, base),
    workflows,
    concurrency: { activities: decl.activityConcurrency?.of(deps.config), workflowTasks: decl.workflowTaskConcurrency },
    db: deps.db,
    ...(deps.telemetry ? { telemetry: deps.telemetry } : {}),
  });
}
