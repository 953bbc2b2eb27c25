/**
 * Task-queue priority and fairness of workflow starts against the real dev server (fairness on,
 * as `matching.enableFairness` in src/dev/temporal-server.ts): what a start carries, and how a
 * backlog is dispatched. Every run is started before a worker polls, so the order of dispatch is
 * the server's alone, whatever the machine's load.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporalClient } from '../../../src/core/connections';
import { companySearchAttributes, jobSearchAttributes } from '../../../src/core/contracts';
import { MAINTENANCE_FAIRNESS_KEY, PRIORITY_KEYS } from '../../../src/core/priority';
import { ensureSchedule } from '../../../src/core/schedules';
import { startWorkflow } from '../../../src/core/workflow-start';
import { testDataConverter } from '../../support/temporal';
import { startStack, workflowBundle, type Stack } from '../../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: { TEMPORAL_FAIRNESS_WEIGHTS: 'user:weighted=3' } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const queue = () => `${stack.config.temporal.taskQueuePrefix}priority-${randomBytes(3).toString('hex')}`;

/** Starts a noop run on `taskQueue` through `client` (default: the stack's) as `userId` and returns its workflow ID. */
async function startNoop(taskQueue: string, userId: string, opts: { companyId?: string; workClass?: 'interactive' | 'batch'; client?: Stack['client'] } = {}) {
  const workflowId = `priority-${randomUUID()}`;
  const ref = { jobType: 'NOOP', targetId: workflowId, userId };
  await startWorkflow(opts.client ?? stack.client, {
    workflowType: 'noopWorkflow',
    workflowId,
    taskQueue,
    args: [],
    reuse: 'reject-duplicate',
    searchAttributes: opts.companyId ? companySearchAttributes({ ...ref, companyId: opts.companyId }) : jobSearchAttributes(ref),
    jobType: 'NOOP',
    ...(opts.workClass ? { workClass: opts.workClass } : {}),
  });
  return workflowId;
}

const priorityOfRun = async (workflowId: string) => {
  const { raw } = await stack.client.workflow.getHandle(workflowId).describe();
  const p = raw.workflowExecutionInfo?.priority;
  return { priorityKey: p?.priorityKey ?? 0, fairnessKey: p?.fairnessKey ?? '', fairnessWeight: p?.fairnessWeight ?? 0 };
};

test('a start carries its class priority key and its tenant as fairness key, with the configured weight', async () => {
  const q = queue(); // no worker polls it: the runs stay open
  const user = randomUUID();
  const company = randomUUID();
  expect(await priorityOfRun(await startNoop(q, user))).toEqual({ priorityKey: PRIORITY_KEYS.interactive, fairnessKey: `user:${user}`, fairnessWeight: 0 });
  expect(await priorityOfRun(await startNoop(q, user, { companyId: company, workClass: 'batch' }))).toEqual({ priorityKey: PRIORITY_KEYS.batch, fairnessKey: `company:${company}`, fairnessWeight: 0 });
  expect(await priorityOfRun(await startNoop(q, 'weighted'))).toEqual({ priorityKey: PRIORITY_KEYS.interactive, fairnessKey: 'user:weighted', fairnessWeight: 3 });

  const connection = await Connection.connect({ address: stack.config.temporal.address });
  try {
    const fifo = temporalClient(connection, { ...stack.config.temporal, fairness: { enabled: false, weights: new Map() } });
    expect(await priorityOfRun(await startNoop(q, user, { client: fifo }))).toEqual({ priorityKey: PRIORITY_KEYS.interactive, fairnessKey: '', fairnessWeight: 0 });
  } finally {
    await connection.close();
  }
});

test('Schedules start maintenance work: their own priority key, one fairness key for all of it', async () => {
  const scheduleId = `${stack.config.temporal.taskQueuePrefix}priority-schedule`;
  await ensureSchedule(stack.client, { scheduleId, every: '1h', workflowType: 'noopWorkflow', taskQueue: queue(), args: [] });
  try {
    const { action } = await stack.client.schedule.getHandle(scheduleId).describe();
    expect(action.type === 'startWorkflow' ? action.priority : undefined).toMatchObject({ priorityKey: PRIORITY_KEYS.maintenance, fairnessKey: MAINTENANCE_FAIRNESS_KEY });
  } finally {
    await stack.client.schedule.getHandle(scheduleId).delete();
  }
});

test("one tenant's backlog does not hold back another tenant's work, and interactive work goes before batch", async () => {
  const q = queue();
  const flooder = randomUUID();
  const other = randomUUID();
  const batch: string[] = [];
  for (let i = 0; i < 8; i++) batch.push(await startNoop(q, randomUUID(), { workClass: 'batch' }));
  const flood: string[] = [];
  for (let i = 0; i < 40; i++) flood.push(await startNoop(q, flooder));
  const late: string[] = [];
  for (let i = 0; i < 4; i++) late.push(await startNoop(q, other));

  // One workflow task at a time: the order in which runs close is the order of dispatch.
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  const worker = await Worker.create({
    connection,
    taskQueue: q,
    workflowBundle: await workflowBundle(),
    dataConverter: testDataConverter(),
    maxConcurrentWorkflowTaskExecutions: 1,
    maxConcurrentWorkflowTaskPolls: 1,
    maxCachedWorkflows: 0,
  });
  const all = [...batch, ...flood, ...late];
  await worker.runUntil(Promise.all(all.map((id) => stack.client.workflow.getHandle(id).result())));
  await connection.close();

  const closed = await Promise.all(all.map(async (id) => ({ id, at: (await stack.client.workflow.getHandle(id).describe()).closeTime!.getTime() })));
  const rank = new Map([...closed].sort((a, b) => a.at - b.at).map((c, i) => [c.id, i]));
  const ranks = (ids: string[]) => ids.map((id) => rank.get(id)!);
  // FIFO would dispatch the late tenant's runs after all 40 of the flood (ranks 48 … 51): with
  // fairness each comes early (the test server runs one partition per task queue, so dispatch
  // has one order).
  expect(Math.max(...ranks(late))).toBeLessThan(30);
  // Batch work, started first (ranks 0 … 7 under FIFO), waits for the interactive runs of its partition.
  expect(ranks(batch).filter((r) => r >= 24).length).toBeGreaterThanOrEqual(6);
}, 180_000);
