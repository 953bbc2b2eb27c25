/** Time-skipping environment, workflow bundle and per-queue workers shared by the workflow tests. */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Duration, Payload } from '@temporalio/common';
import { loadConfig } from '../../src/families';
import { payloadCodecFromConfig } from '../../src/crypto/payload-codec';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { sharedBundle } from '../support/workflow-bundles';
import { jobWorkflowId, taskQueues, type JobType, type JobWorkflowInput, type QueueName } from '../../src/core/contracts';
import { testDataConverter, timeSkippingTestEnv } from '../support/temporal';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // already installed in this jest worker
}

/** Starts the time-skipping test server ({@link timeSkippingTestEnv}; clients encrypt payloads like the services, AR-6). */
export const createTimeSkippingEnv = timeSkippingTestEnv;

/** The bundle of `src/workflows` (built once per jest run), or of another workflows module. */
export function bundle(workflowsPath?: string): Promise<WorkflowBundleWithSourceMap> {
  if (workflowsPath === undefined) return sharedBundle('plain');
  return bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
}

/**
 * Activities per logical task queue, as the deployed workers register them (DC-2): `jobs` on the
 * workflow worker, `ai` and `github` on activity-only workers. A queue with no activities gets no
 * worker, so nothing ever picks up an activity a workflow schedules on it.
 */
export type ActivitiesByQueue = Record<QueueName, object>;

/** Options of {@link runJobWorkflow}. */
export interface RunJobWorkflowOptions {
  /**
   * Times the workflow out after this duration (default none). Server time: skipped while the
   * workflow waits on timers, but real time while an activity waits for a worker to pick it up.
   */
  workflowExecutionTimeout?: Duration;
  /** Cancels the workflow (`handle.cancel()`) once this promise resolves. */
  cancelWhen?: Promise<unknown>;
  /** Companion jobs in the workflow's input. */
  companions?: JobWorkflowInput['companions'];
  /** The input's `companionsAfterWork`: the companions start when the work is over. */
  companionsAfterWork?: true;
}

/**
 * Runs one job workflow to its end on fresh workers, one per task queue: a workflow worker on the
 * `jobs` queue with `activities.jobs`, and activity-only workers on the `ai` and `github` queues
 * with theirs. The three queue names are unique to the call, so an activity the workflow schedules
 * on the wrong queue is not found (NotFoundError on a worker without it, or never picked up).
 * Returns the input and the result, or the error it failed with. With `cancelWhen`, the workflow is
 * cancelled once that promise resolves.
 */
export async function runJobWorkflow(
  env: TestWorkflowEnvironment,
  workflowBundle: WorkflowBundleWithSourceMap,
  workflow: string,
  jobType: JobType,
  activities: ActivitiesByQueue,
  opts: RunJobWorkflowOptions = {},
): Promise<{ input: JobWorkflowInput; result: unknown }> {
  const queues = taskQueues(`wf-${randomUUID()}-`);
  const input: JobWorkflowInput = {
    jobId: randomUUID(), jobType, targetId: randomUUID(), userId: randomUUID(), queues, ...(opts.companions ? { companions: opts.companions } : {}),
    ...(opts.companionsAfterWork ? { companionsAfterWork: true } : {}),
  };
  const connection = env.nativeConnection;
  const dataConverter = testDataConverter();
  const jobsWorker = await Worker.create({ connection, taskQueue: queues.jobs, workflowBundle, activities: activities.jobs, dataConverter });
  const activityWorkers = await Promise.all(
    (['ai', 'github'] as const)
      .filter((queue) => Object.keys(activities[queue]).length > 0)
      .map((queue) => Worker.create({ connection, taskQueue: queues[queue], activities: activities[queue], dataConverter })),
  );
  const execution = () =>
    jobsWorker.runUntil(async () => {
      const handle = await env.client.workflow.start(workflow, {
        workflowId: jobWorkflowId(jobType, input.targetId),
        taskQueue: queues.jobs,
        args: [input],
        workflowExecutionTimeout: opts.workflowExecutionTimeout,
      });
      if (opts.cancelWhen) void opts.cancelWhen.then(() => handle.cancel());
      return handle.result().catch((e: unknown) => e);
    });
  // Each activity-only worker runs until the workflow worker is done, then shuts down.
  const result = await activityWorkers.reduce<() => Promise<unknown>>((inner, worker) => () => worker.runUntil(inner), execution)();
  return { input, result };
}

/**
 * The activities a run of `input`'s workflow scheduled, in order, each with the task queue it was
 * scheduled on (from the workflow's history).
 */
export async function scheduledActivities(env: TestWorkflowEnvironment, input: JobWorkflowInput): Promise<{ activity: string; taskQueue: string }[]> {
  const history = await env.client.workflow.getHandle(jobWorkflowId(input.jobType, input.targetId)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    return scheduled ? [{ activity: scheduled.activityType?.name ?? '', taskQueue: scheduled.taskQueue?.name ?? '' }] : [];
  });
}

/**
 * The local activities a run of `input`'s workflow recorded, in order: one marker per completed
 * (or finally failed) local activity, with its type and the attempt that ended it.
 */
export async function localActivities(env: TestWorkflowEnvironment, input: JobWorkflowInput): Promise<{ activity: string; attempt: number }[]> {
  const history = await env.client.workflow.getHandle(jobWorkflowId(input.jobType, input.targetId)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data;
    const parsed = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string; attempt?: number }) : {};
    return [{ activity: parsed.activity_type ?? '', attempt: parsed.attempt ?? 0 }];
  });
}

/** Texts of every payload in the history of `input`'s workflow (inputs, results, markers, failures). */
export async function historyPayloadTexts(env: TestWorkflowEnvironment, input: JobWorkflowInput): Promise<string[]> {
  const history = await env.client.workflow.getHandle(jobWorkflowId(input.jobType, input.targetId)).fetchHistory();
  const payloads: Payload[] = [];
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (node instanceof Uint8Array) return;
    const o = node as Record<string, unknown>;
    if (o.data instanceof Uint8Array && 'metadata' in o) payloads.push(o as Payload);
    for (const v of Object.values(o)) walk(v);
  };
  walk(history.events ?? []);
  // Payloads are encrypted (AR-6): decode them with the test codec before reading their text.
  const codec = payloadCodecFromConfig(loadConfig({ NODE_ENV: 'test' }).temporal.payloadCodec);
  const decoded = await codec.decode(payloads);
  return decoded.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'));
}

/** Names of the activities a run of `input`'s workflow started (picked up by some worker). */
export async function startedActivities(env: TestWorkflowEnvironment, input: JobWorkflowInput): Promise<string[]> {
  const history = await env.client.workflow.getHandle(jobWorkflowId(input.jobType, input.targetId)).fetchHistory();
  const events = history.events ?? [];
  const byScheduledId = new Map(events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes?.activityType?.name ?? '']));
  return events.flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    return started ? [byScheduledId.get(String(started.scheduledEventId)) ?? ''] : [];
  });
}

/**
 * An activity implementation that blocks, heartbeating, until the activity is cancelled; `started`
 * resolves when it runs. For cancellation tests.
 */
export function blockUntilCancelled(): { started: Promise<void>; activity: () => Promise<never> } {
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const activity = async (): Promise<never> => {
    const ctx = Context.current();
    markStarted();
    const timer = setInterval(() => ctx.heartbeat(), 100);
    try {
      return await ctx.cancelled;
    } finally {
      clearInterval(timer);
    }
  };
  return { started, activity };
}
