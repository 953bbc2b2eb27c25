/**
 * The start primitive on the real Temporal dev server (no worker needed: a started workflow stays
 * RUNNING until it is terminated): the reuse policies, run keys, the `already-running` outcome, the
 * memo and search attributes, the start metric, and the run-state describe.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { jobSearchAttributes, SA_JOB_TYPE } from '../../../src/core/contracts';
import { RUN_KEY_MEMO, startWorkflow, workflowRunState, type WorkflowIdReuse, type WorkflowStart } from '../../../src/core/workflow-start';
import { metricsRegistry } from '../../../src/telemetry/metrics';
import { sharedTestEnv } from '../../support/temporal';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await sharedTestEnv();
});
afterAll(async () => env?.teardown());

const taskQueue = `workflow-start-${randomUUID()}`;

function startOf(reuse: WorkflowIdReuse, jobType = `UNIT_${randomUUID().slice(0, 8)}`): WorkflowStart {
  const targetId = randomUUID();
  return {
    workflowType: 'noopWorkflow',
    workflowId: `unit-start:${targetId}`,
    taskQueue,
    args: [],
    reuse,
    searchAttributes: jobSearchAttributes({ jobType, targetId, userId: randomUUID() }),
    memo: { jobId: targetId },
    jobType,
  };
}

async function started(jobType: string, outcome: string): Promise<number> {
  const m = await metricsRegistry.getSingleMetric('jobs_started_total')?.get();
  return m?.values.find((v) => v.labels.job_type === jobType && v.labels.outcome === outcome)?.value ?? 0;
}

async function terminate(workflowId: string): Promise<void> {
  await env.client.workflow.getHandle(workflowId).terminate('test');
}

test('reject-duplicate: one run per workflow ID, ever', async () => {
  const start = startOf('reject-duplicate');
  expect(await workflowRunState(env.client, start.workflowId)).toBe('missing');
  expect(await startWorkflow(env.client, start)).toBe('started');
  expect(await workflowRunState(env.client, start.workflowId)).toBe('running');
  expect(await startWorkflow(env.client, start)).toBe('already-running');
  await terminate(start.workflowId);
  expect(await workflowRunState(env.client, start.workflowId)).toBe('closed');
  expect(await startWorkflow(env.client, start)).toBe('already-running');
  expect(await workflowRunState(env.client, start.workflowId)).toBe('closed');
  expect(await started(start.jobType, 'started')).toBe(1);
  expect(await started(start.jobType, 'already-running')).toBe(2);
});

test('allow-duplicate: never two open runs, but a closed ID runs again', async () => {
  const start = startOf('allow-duplicate');
  expect(await startWorkflow(env.client, start)).toBe('started');
  const first = await env.client.workflow.getHandle(start.workflowId).describe();
  expect(await startWorkflow(env.client, start)).toBe('already-running');
  await terminate(start.workflowId);
  expect(await startWorkflow(env.client, start)).toBe('started');
  const second = await env.client.workflow.getHandle(start.workflowId).describe();
  expect(second.runId).not.toBe(first.runId);
  expect(second.status.name).toBe('RUNNING');
  await terminate(start.workflowId);
  expect(await started(start.jobType, 'started')).toBe(2);
  expect(await started(start.jobType, 'already-running')).toBe(1);
});

test('the run carries the memo and the search attributes; the task queue and type are the ones asked for', async () => {
  const start = startOf('reject-duplicate');
  await startWorkflow(env.client, start);
  const d = await env.client.workflow.getHandle(start.workflowId).describe();
  expect(d.memo).toEqual(start.memo);
  expect(d.typedSearchAttributes.get(SA_JOB_TYPE)).toBe(start.jobType);
  expect(d.taskQueue).toBe(taskQueue);
  expect(d.type).toBe('noopWorkflow');
  await terminate(start.workflowId);
});

test('a start the server refuses is counted as failed and thrown', async () => {
  const start = { ...startOf('reject-duplicate'), taskQueue: '' };
  await expect(startWorkflow(env.client, start)).rejects.toThrow();
  expect(await started(start.jobType, 'failed')).toBe(1);
  expect(await workflowRunState(env.client, start.workflowId)).toBe('missing');
});

test('allow-duplicate with a run key: one run per key, open or closed; a new key runs again under the ID', async () => {
  const base = startOf('allow-duplicate');
  const first = { ...base, runKey: 'job-1:0' };
  expect(await startWorkflow(env.client, first)).toBe('started');
  const run0 = await env.client.workflow.getHandle(base.workflowId).describe();
  expect(run0.memo).toEqual({ ...base.memo, [RUN_KEY_MEMO]: 'job-1:0' });
  expect(await Promise.all([startWorkflow(env.client, first), startWorkflow(env.client, first)])).toEqual(['already-running', 'already-running']);
  await terminate(base.workflowId);
  // The key's run has closed: a late start of the same key starts nothing.
  expect(await startWorkflow(env.client, first)).toBe('already-running');
  expect((await env.client.workflow.getHandle(base.workflowId).describe()).runId).toBe(run0.runId);
  // A new key (a re-run) starts a new run under the same workflow ID, once.
  const retry = { ...base, runKey: 'job-1:1' };
  expect(await startWorkflow(env.client, retry)).toBe('started');
  expect(await startWorkflow(env.client, retry)).toBe('already-running');
  const run1 = await env.client.workflow.getHandle(base.workflowId).describe();
  expect(run1.runId).not.toBe(run0.runId);
  expect(run1.memo?.[RUN_KEY_MEMO]).toBe('job-1:1');
  await terminate(base.workflowId);
  expect(await started(base.jobType, 'started')).toBe(2);
  expect(await started(base.jobType, 'already-running')).toBe(4);
});

test('a start of a key that races past the check, after the key\'s run started and closed, starts nothing', async () => {
  const base = startOf('allow-duplicate');
  expect(await startWorkflow(env.client, { ...base, runKey: 'job-2:0' })).toBe('started');
  await terminate(base.workflowId);
  const start = { ...base, runKey: 'job-2:1' };
  // Our check reads the previous key's closed run; before our start reaches the server, another
  // starter of the same key starts its run, which closes.
  let raced: string | undefined;
  const racing = {
    workflow: {
      start: env.client.workflow.start.bind(env.client.workflow),
      getHandle: (workflowId: string) => ({
        async describe() {
          const seen = await env.client.workflow.getHandle(workflowId).describe();
          expect(await startWorkflow(env.client, start)).toBe('started');
          raced = (await env.client.workflow.getHandle(workflowId).describe()).runId;
          await terminate(workflowId);
          return seen;
        },
      }),
    },
  } as unknown as Client;
  expect(await startWorkflow(racing, start)).toBe('started'); // the server answered with the key's run
  const latest = await env.client.workflow.getHandle(base.workflowId).describe();
  expect(latest.runId).toBe(raced);
  expect(latest.status.name).toBe('TERMINATED');
});

test('a closed run without a run key is the key\'s run when the starter says so', async () => {
  const base = startOf('allow-duplicate');
  await startWorkflow(env.client, base); // no key
  await terminate(base.workflowId);
  const closed = await env.client.workflow.getHandle(base.workflowId).describe();
  const seen: unknown[] = [];
  const isKeyRun = (run: { memo: Record<string, unknown> | undefined; closeTime: Date | undefined }) => (seen.push(run), true);
  expect(await startWorkflow(env.client, { ...base, runKey: 'job-3:0', isKeyRun })).toBe('already-running');
  expect(seen).toEqual([{ memo: base.memo, closeTime: closed.closeTime }]);
  expect(await startWorkflow(env.client, { ...base, runKey: 'job-3:0', isKeyRun: () => false })).toBe('started');
  expect((await env.client.workflow.getHandle(base.workflowId).describe()).runId).not.toBe(closed.runId);
  await terminate(base.workflowId);
});
