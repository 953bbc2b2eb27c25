/**
 * AR-7/SAN-4 pattern: the API dies between the commit of a run and the start of its workflow (the
 * starter throws): the run stays QUEUED with its sealed input in the outbox (never the clear text);
 * the reconcile pass starts it by the same workflow ID and it runs to SUCCEEDED; a second pass
 * starts nothing. A lost manual-retry signal is re-sent by the same pass.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { AiRunReconcileReport } from '../../../src/activities/ai-runs/reconcile';
import { maintenanceTaskQueue } from '../../../src/core/contracts';
import { inputBoxFromConfig } from '../../../src/services/ai-runs/input-box';
import { createAiRun, retryAiRun, type AiRunDeps } from '../../../src/services/ai-runs/runs';
import { createTemporalAiRunStarter, type AiRunStarter } from '../../../src/services/ai-runs/starter';
import { startStack, type Stack } from '../../support/stack';
import { companyWithMembers, waitForRun } from './support';

let stack: Stack;
let real: AiRunStarter;
let deps: AiRunDeps;

beforeAll(async () => {
  stack = await startStack({ aiWorker: false, env: { AI_RUNTIME_REJECT_FIRST_MARKER: '[reject]' } });
  real = createTemporalAiRunStarter(stack.client, stack.config);
  deps = { db: stack.db, config: stack.config, starter: real, box: inputBoxFromConfig(stack.config), log: pino({ level: 'silent' }) };
}, 120_000);
afterAll(async () => stack?.stop());

/** One reconcile pass as its Schedule runs it: the workflow on the `maintenance` queue of the stack's worker. */
function reconcilePass(): Promise<AiRunReconcileReport> {
  return stack.client.workflow.execute('reconcileAiRunsWorkflow', {
    workflowId: `reconcile-ai-runs-${randomUUID()}`,
    taskQueue: maintenanceTaskQueue(stack.config.temporal.taskQueuePrefix),
    args: [{ queues: stack.queues, graceSeconds: 0 }],
  });
}

const crashing = (base: AiRunStarter): AiRunStarter => ({
  ...base,
  start: () => Promise.reject(new Error('simulated crash between commit and start')),
  signalRetry: () => Promise.reject(new Error('simulated crash between commit and signal')),
});

test('a run whose start was lost is started by the reconcile pass, once', async () => {
  const co = await companyWithMembers(stack);
  const text = 'I need an employment certificate for my bank loan, my email is kim@example.com';
  const { run } = await createAiRun({ ...deps, starter: crashing(real) }, co.hr.userId, randomUUID(), { companyId: co.companyId, text, locale: 'en' });
  expect(run.status).toBe('QUEUED');
  const pending = await stack.db.aiRunPendingInput.findUniqueOrThrow({ where: { runId: run.id } });
  expect(pending.ciphertext).not.toContain('kim@example.com');
  expect(await real.isOpen(run.workflowId)).toBe(false);

  const report = await reconcilePass();
  expect(report).toMatchObject({ started: 1, failed: 0 });
  const done = await waitForRun(stack, co.hr.auth, run.id);
  expect(done).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
  expect(await stack.db.aiRunPendingInput.count({ where: { runId: run.id } })).toBe(0);
  const again = await reconcilePass();
  expect(again.started).toBe(0);
  expect(await stack.db.aiAttempt.count({ where: { runId: run.id } })).toBe(1);
});

test('a manual retry whose signal was lost is re-sent by the reconcile pass: one new attempt', async () => {
  const co = await companyWithMembers(stack);
  const { run } = await createAiRun(deps, co.hr.userId, randomUUID(), { companyId: co.companyId, text: '[reject] Leave request for 2026-12-10' });
  await waitForRun(stack, co.hr.auth, run.id, ['FAILED']);
  const retried = await retryAiRun({ ...deps, starter: crashing(real) }, co.hr.userId, run.id, randomUUID());
  expect(retried).toMatchObject({ attemptNumber: 2 });
  expect(retried.run.status).toBe('RETRYING');
  expect((await reconcilePass()).resignalled).toBeGreaterThanOrEqual(1);
  await reconcilePass(); // a second signal is harmless
  const done = await waitForRun(stack, co.hr.auth, run.id);
  expect(done.status).toBe('SUCCEEDED');
  expect(done.attempts.map((a) => [a.number, a.trigger])).toEqual([[1, 'INITIAL'], [2, 'MANUAL_RETRY']]);
});
