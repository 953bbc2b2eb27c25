/**
 * AR-7/AR-8 the run workflow on the time-skipping test server with in-memory activities: one
 * runtime call per attempt (never a transparent retry), the attempt budget, outages not charged,
 * Retry-After honoured by the durable timer, the overall deadline → DEADLINE_EXCEEDED, a terminal
 * error → FAILED at once, and a manual retry signal → one MANUAL_RETRY attempt.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { retryAiRunSignal, type AiRunWorkflowInput } from '../../../src/domain/ai-runs/contracts';
import { bundle, createTimeSkippingEnv } from '../harness';
import { testDataConverter } from '../../support/temporal';
import { pollUntil } from '../../support/poll';
import { fakeArActivities, runInput, TEST_POLICY, type Step } from './fakes';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
}, 120_000);
afterAll(async () => env?.teardown());

const retryable = (code: string, extra: { retryAfterMs?: number; outage?: boolean } = {}): Step => ({ fail: 'retryable', details: { code, ...extra } });

type SignalFn = (attemptNumber: number, deadlineAt: string) => Promise<void>;

/** Runs the workflow with `steps`; `during(handle, fakes)` runs while it does. Returns the fakes and the result or error. */
async function run(steps: Step[], opts: { before?: (f: ReturnType<typeof fakeArActivities>) => void; deadlineMs?: number; policy?: AiRunWorkflowInput['policy']; localWrites?: boolean; during?: (h: { signal: SignalFn }, f: ReturnType<typeof fakeArActivities>) => Promise<void> } = {}) {
  const fakes = fakeArActivities(steps);
  opts.before?.(fakes);
  const id = randomUUID();
  const queues = { jobs: `ar-wf-${id}`, aiRuns: `ar-rt-${id}` };
  const jobsWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: queues.jobs, workflowBundle, activities: fakes.jobs, dataConverter: testDataConverter() });
  const rtWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: queues.aiRuns, activities: fakes.aiRuns, dataConverter: testDataConverter() });
  const now = await env.currentTimeMs(); // the test server's clock runs ahead of ours once time was skipped
  const result = await rtWorker.runUntil(
    jobsWorker.runUntil(async () => {
      const handle = await env.client.workflow.start('aiRunWorkflow', {
        workflowId: `ai-run:${id}`,
        taskQueue: queues.jobs,
        args: [runInput(queues, now, opts.deadlineMs, opts.policy, opts.localWrites ?? true)],
      });
      if (opts.during) await opts.during({ signal: (n, d) => handle.signal(retryAiRunSignal, { attemptNumber: n, deadlineAt: d }) }, fakes);
      return handle.result().catch((e: unknown) => e);
    }),
  );
  return { ...fakes, result, workflowId: `ai-run:${id}` };
}

/** Activity types the run scheduled on a task queue, and the local activities it recorded, from its history. */
async function activitiesOf(workflowId: string) {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    scheduled: events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [])),
    localMarkers: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
  };
}

test('projection writes are local activities, only the runtime call goes through a task queue; an input without localWrites keeps them on the jobs queue', async () => {
  const local = await run(['ok']);
  expect(local.result).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
  // The first begin drops the sealed input itself: two local writes (begin, answer), one release.
  expect(await activitiesOf(local.workflowId)).toEqual({ scheduled: ['callAiRuntime'], localMarkers: 2 });
  expect(local.run.releases).toBe(1);
  const older = await run(['ok'], { localWrites: false });
  expect(older.result).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
  expect(await activitiesOf(older.workflowId)).toEqual({ scheduled: ['beginAttempt', 'callAiRuntime', 'recordAnswer'], localMarkers: 0 });
  expect(older.run.releases).toBe(1);
});

test('a local projection write that keeps failing transiently goes on as the jobs-queue activity, and the run completes', async () => {
  let failures = 0;
  const r = await run(['ok'], {
    before: (f) => {
      const real = f.jobs.recordAnswer;
      f.jobs.recordAnswer = async (a) => {
        // The local attempts (LOCAL_PROJECTION_RETRY) fail; the first attempt of the remote activity succeeds.
        if (failures++ < 4) throw new Error('Connection terminated unexpectedly');
        return real(a);
      };
    },
  });
  expect(r.result).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
  expect(failures).toBe(5);
  expect((await activitiesOf(r.workflowId)).scheduled).toEqual(['callAiRuntime', 'recordAnswer']);
});

test('a first success: one attempt, one call, SUCCEEDED', async () => {
  const r = await run(['ok']);
  expect(r.result).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
  expect(r.calls).toEqual([1]);
  expect(r.run.attempts.map((a) => [a.number, a.trigger, a.status])).toEqual([[1, 'INITIAL', 'SUCCEEDED']]);
});

test('retryable errors: a new attempt each time (one call each), honouring Retry-After, then SUCCEEDED', async () => {
  const r = await run([retryable('RUNTIME_RATE_LIMITED', { retryAfterMs: 120_000 }), retryable('RUNTIME_TIMEOUT'), 'ok']);
  expect(r.result).toMatchObject({ status: 'SUCCEEDED', attempts: 3 });
  expect(r.calls).toEqual([1, 2, 3]);
  expect(r.run.releases).toBe(1); // only the first begin drops the sealed input
  expect(r.run.attempts.map((a) => [a.trigger, a.status, a.errorCode])).toEqual([
    ['INITIAL', 'FAILED', 'RUNTIME_RATE_LIMITED'],
    ['AUTO_RETRY', 'FAILED', 'RUNTIME_TIMEOUT'],
    ['AUTO_RETRY', 'SUCCEEDED', null],
  ]);
});

test('the attempt budget: maxAttempts retryable failures → FAILED with the last code; calls = attempts', async () => {
  const r = await run([retryable('RUNTIME_TIMEOUT'), retryable('RUNTIME_TIMEOUT'), retryable('RUNTIME_TIMEOUT'), 'ok'], { policy: { ...TEST_POLICY, retryWindowMs: 1000 } });
  expect(r.result).toBeInstanceOf(WorkflowFailedError);
  expect((r.result as WorkflowFailedError).cause).toMatchObject({ type: 'AI_RUN_FAILED' });
  expect(r.calls).toEqual([1, 2, 3]);
  expect(r.run).toMatchObject({ status: 'FAILED', errorCode: 'RUNTIME_TIMEOUT', attemptCount: 3 });
});

test('outages are waited out, not charged: 3 outages and a success within a budget of 2', async () => {
  const outage = retryable('RUNTIME_UNAVAILABLE', { outage: true });
  const r = await run([outage, outage, outage, 'ok'], { policy: { ...TEST_POLICY, maxAttempts: 2 } });
  expect(r.result).toMatchObject({ status: 'SUCCEEDED', attempts: 4 });
  expect(r.calls).toEqual([1, 2, 3, 4]);
});

test('a terminal error → FAILED at once (one call); a manual retry signal → one MANUAL_RETRY attempt, SUCCEEDED', async () => {
  const r = await run([{ fail: 'terminal', details: { code: 'RUNTIME_REJECTED' } }, 'ok'], {
    during: async (h, f) => {
      await pollUntil(() => f.run.status, (status) => status === 'FAILED', { describe: 'the run to be FAILED', maxIntervalMs: 100 });
      expect(f.calls).toEqual([1]);
      const n = f.manualRetry();
      const deadline = new Date((await env.currentTimeMs()) + 600_000).toISOString();
      await h.signal(n, deadline);
      await h.signal(n, deadline); // a repeated signal (reconciler) is harmless
    },
  });
  expect(r.result).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
  expect(r.calls).toEqual([1, 2]);
  expect(r.run.attempts.map((a) => [a.trigger, a.status, a.errorCode])).toEqual([
    ['INITIAL', 'FAILED', 'RUNTIME_REJECTED'],
    ['MANUAL_RETRY', 'SUCCEEDED', null],
  ]);
});

test('the overall deadline → FAILED DEADLINE_EXCEEDED while waiting to retry (time skipped)', async () => {
  const r = await run([retryable('RUNTIME_RATE_LIMITED', { retryAfterMs: 3_600_000 }), 'ok'], { deadlineMs: 600_000, policy: { ...TEST_POLICY, retryWindowMs: 1000 } });
  expect(r.result).toBeInstanceOf(WorkflowFailedError);
  expect(r.calls).toEqual([1]);
  expect(r.run).toMatchObject({ status: 'FAILED', errorCode: 'DEADLINE_EXCEEDED' });
});

test('a run cancelled through the API before its workflow began: no attempt, no call, the workflow ends at once', async () => {
  const r = await run(['ok'], {
    before: (f) => Object.assign(f.run, { status: 'FAILED', errorCode: 'CANCELLED' }),
  });
  expect(r.result).toBeInstanceOf(WorkflowFailedError);
  expect((r.result as WorkflowFailedError).cause).toMatchObject({ type: 'AI_RUN_FAILED' });
  expect(r.calls).toEqual([]);
  expect(r.run.attempts).toEqual([]);
});
