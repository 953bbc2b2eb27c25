/**
 * The one way a Temporal worker is built (DC-2, AR-6, SAN-4): the payload codec, the database
 * failure interceptor and the tracing interceptors are always applied; callers choose the task
 * queue, activities, workflows and concurrency.
 */
import { Worker, type NativeConnection, type WorkflowBundleOption } from '@temporalio/worker';
import type { Duration } from '@temporalio/common';
import type { PrismaClient } from '@prisma/client';
import { temporalDataConverter, type PayloadCodecConfig } from '../crypto/payload-codec';
import { telemetryWorkerOptions, type WorkerTelemetry } from '../telemetry/temporal';
import { dbFailureInterceptor } from './db-failures';

/** Where a worker's workflows come from: none (activities only), a module path it bundles, or a prebuilt bundle. */
export type WorkflowSource = 'none' | { workflowsPath: string } | { workflowBundle: WorkflowBundleOption };

/** Everything {@link createWorker} needs; there is deliberately no `dataConverter` option. */
export interface WorkerSpec {
  connection: NativeConnection;
  /** Namespace and payload codec keys (`config.temporal`). */
  temporal: { namespace: string; payloadCodec: PayloadCodecConfig };
  /** Deployed task-queue name. */
  taskQueue: string;
  activities?: object;
  /** Default `'none'`. A prebuilt bundle must include the tracing workflow interceptors when `telemetry` is set. */
  workflows?: WorkflowSource;
  /** Most activities / workflow tasks run at once (SDK defaults when absent). */
  concurrency?: { activities?: number; workflowTasks?: number };
  /** Probed with `SELECT 1` while a database outage is waited out inside an attempt (SAN-4). */
  db: Pick<PrismaClient, '$queryRaw'>;
  /** Tracing interceptors and the workflow-span sink; none when absent. */
  telemetry?: WorkerTelemetry;
  /** How long running activities may finish after shutdown starts (default 10 s). */
  shutdownGraceTime?: Duration;
}

/**
 * Builds (does not run) a worker. Its payloads always pass the AR-6 codec; its activities always
 * run inside the tracing interceptors (outermost) and then the database failure interceptor.
 */
export async function createWorker(spec: WorkerSpec): Promise<Worker> {
  const workflows = spec.workflows ?? 'none';
  const kind = workflows === 'none' ? 'none' : 'workflowsPath' in workflows ? 'path' : 'bundle';
  const traced = telemetryWorkerOptions(spec.telemetry, kind);
  const db = spec.db;
  return Worker.create({
    connection: spec.connection,
    namespace: spec.temporal.namespace,
    dataConverter: temporalDataConverter(spec.temporal.payloadCodec),
    taskQueue: spec.taskQueue,
    ...(workflows === 'none' ? {} : workflows),
    ...(spec.activities ? { activities: spec.activities } : {}),
    ...(spec.concurrency?.activities ? { maxConcurrentActivityTaskExecutions: spec.concurrency.activities } : {}),
    ...(spec.concurrency?.workflowTasks ? { maxConcurrentWorkflowTaskExecutions: spec.concurrency.workflowTasks } : {}),
    ...traced,
    interceptors: {
      ...traced.interceptors,
      activity: [...(traced.interceptors?.activity ?? []), dbFailureInterceptor({ probe: () => db.$queryRaw`SELECT 1` })],
    },
    shutdownGraceTime: spec.shutdownGraceTime ?? '10s',
  });
}
