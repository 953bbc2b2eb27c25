/**
 * The start primitive on the real Temporal dev server (no worker needed: a started workflow stays
 * RUNNING until it is terminated): the reuse policies, the `already-running` outcome, the memo and
 * search attributes, the start metric, and the run-state describe.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { jobSearchAttributes, SA_JOB_TYPE } from '../../../src/core/contracts';
import { startWorkflow, workflowRunState, type WorkflowIdReuse, type WorkflowStart } from '../../../src/core/workflow-start';
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
