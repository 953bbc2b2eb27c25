/** Time-skipping test environment and workflow bundle shared by the workflow tests. */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { JobType, JobWorkflowInput } from '../../src/core/contracts';
import { findTemporalTestServer } from '../../src/dev/temporal-server';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // already installed in this jest worker
}

/** Starts the time-skipping test server: the local binary when present, else the SDK's download. */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const path = findTemporalTestServer();
  return TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : {});
}

/** Bundles `src/workflows` (or another workflows module) once. */
export function bundle(workflowsPath = require.resolve('../../src/workflows')): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
}

/**
 * Runs one job workflow to its end on a fresh worker with `activities` on a unique task queue (all
 * three logical queues map to it). Returns the input and the result, or the error it failed with.
 * With `cancelWhen`, the workflow is cancelled (`handle.cancel()`) once that promise resolves.
 */
export async function runJobWorkflow(
  env: TestWorkflowEnvironment,
  workflowBundle: WorkflowBundleWithSourceMap,
  workflow: string,
  jobType: JobType,
  activities: object,
  opts: { cancelWhen?: Promise<unknown> } = {},
): Promise<{ input: JobWorkflowInput; result: unknown }> {
  const taskQueue = `wf-${randomUUID()}`;
  const input: JobWorkflowInput = {
    jobId: randomUUID(), jobType, targetId: randomUUID(), userId: randomUUID(),
    queues: { jobs: taskQueue, ai: taskQueue, github: taskQueue },
  };
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities });
  const result = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(workflow, { workflowId: `${jobType}:${input.targetId}`, taskQueue, args: [input] });
    if (opts.cancelWhen) void opts.cancelWhen.then(() => handle.cancel());
    return handle.result().catch((e: unknown) => e);
  });
  return { input, result };
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
