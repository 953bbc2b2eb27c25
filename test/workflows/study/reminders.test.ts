/**
 * `studyRemindersWorkflow` on the time-skipping server: one reminder pass, decided for
 * the run's start time (a retried activity attempt decides for the same instant), its result
 * returned; a failing pass is retried a few times, then fails the run (the next tick tries again).
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { studyRemindersWorkflow } from '../../../src/workflows';
import { testDataConverter } from '../../support/temporal';
import { bundle, createTimeSkippingEnv } from '../harness';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
}, 120_000);
afterAll(async () => env?.teardown());

async function run(runStudyReminderPass: jest.Mock) {
  const taskQueue = `st-reminders-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities: { runStudyReminderPass }, dataConverter: testDataConverter() });
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start(studyRemindersWorkflow, { workflowId: `st-reminders-${randomUUID()}`, taskQueue });
    const result = await handle.result().catch((e: unknown) => e);
    return { result, startTime: (await handle.describe()).startTime };
  });
}

test('one pass for the run’s start time; its result is the run’s', async () => {
  let attempts = 0;
  const pass = jest.fn(async () => {
    attempts += 1;
    if (attempts === 1) throw new Error('database restarting');
    return { scanned: 4, dueToday: 2, reminded: 1 };
  });
  const { result, startTime } = await run(pass);
  expect(result).toEqual({ scanned: 4, dueToday: 2, reminded: 1 });
  expect(pass).toHaveBeenCalledTimes(2);
  expect(pass.mock.calls.map((c) => (c as unknown as [{ nowIso: string }])[0].nowIso)).toEqual([startTime.toISOString(), startTime.toISOString()]);
});

test('a pass that keeps failing fails the run after its few attempts', async () => {
  const pass = jest.fn(async () => {
    throw ApplicationFailure.retryable('database down', 'DB_UNAVAILABLE');
  });
  const { result } = await run(pass);
  expect(result).toBeInstanceOf(WorkflowFailedError);
  expect(pass).toHaveBeenCalledTimes(3);
});
