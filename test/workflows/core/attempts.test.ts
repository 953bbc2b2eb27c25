/**
 * The core attempt ledger (src/core/attempts.ts) in a workflow on the time-skipping test server,
 * every hook a fake activity (test/workflows/fixtures/attempt-ledger.ts): the attempt budget, the
 * retry backoff and Retry-After as durable timers, outages not charged (a new attempt, or the same
 * attempt again up to a bound), a terminal failure, a lost heartbeat, the overall deadline, and
 * the projection refusing or stopping the loop.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { testDataConverter } from '../../support/temporal';
import { bundle, createTimeSkippingEnv } from '../harness';
import type { LedgerActivities, LedgerInput, LedgerRecord } from '../fixtures/attempt-ledger';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle(require.resolve('../fixtures/attempt-ledger'));
}, 120_000);
afterAll(async () => env?.teardown());

/** One scripted call: an answer, a failure, or a call that never heartbeats. */
// (A Retry-After travels in details here: the time-skipping test server drops `nextRetryDelay`;
// the classifier reads both, test/unit/core/attempts.test.ts.)
type Step = 'ok' | 'hang' | { type: string; nonRetryable?: boolean; details?: unknown[] };

interface Options {
  budget?: number;
  /** The projection refuses to begin this attempt number. */
  refuseAt?: number;
  /** The projection stops the loop at the `retrying` record of this attempt number. */
  stopAt?: number;
  /** The success record fails for good. */
  rejectSuccess?: boolean;
  input?: Partial<LedgerInput>;
  /** The deadline, ms after the test server's now. */
  deadlineInMs?: number;
}

/** Runs the fixture workflow over `steps`; returns its result (or error), what the fakes saw and the timers it started (ms). */
async function run(steps: Step[], opts: Options = {}) {
  const begins: { number: number; retry: boolean }[] = [];
  const calls: number[] = [];
  const records: LedgerRecord[] = [];
  const acts: LedgerActivities = {
    begin: async (a) => {
      begins.push(a);
      return { proceed: a.number !== opts.refuseAt, budget: opts.budget ?? 3 };
    },
    call: async ({ number }) => {
      calls.push(number);
      const step = steps[calls.length - 1] ?? 'ok';
      if (step === 'ok') return `answer ${number}`;
      if (step === 'hang') {
        await Context.current().sleep(10 * 60_000); // never heartbeats; cancellable at worker shutdown
        throw new Error('unreachable');
      }
      throw ApplicationFailure.create({ message: `scripted ${step.type}`, type: step.type, nonRetryable: step.nonRetryable, details: step.details });
    },
    record: async (r) => {
      records.push(r);
      if (opts.rejectSuccess && r.kind === 'succeeded') throw ApplicationFailure.create({ message: 'the row refused the write', type: 'PROJECTION_REJECTED', nonRetryable: true });
      return !(r.kind === 'retrying' && r.number === opts.stopAt);
    },
  };
  const queue = `ledger-${randomUUID()}`;
  const workflowId = `ledger-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle, activities: acts, dataConverter: testDataConverter() });
  const now = await env.currentTimeMs();
  const input: LedgerInput = {
    queue,
    retryBackoff: { initialMs: 1_000, maxMs: 10_000, honourRetryAfter: true },
    outages: { repeat: 'next-attempt' },
    callTimeoutMs: 60_000,
    heartbeatTimeoutMs: 30_000,
    ...(opts.deadlineInMs === undefined ? {} : { deadlineAt: now + opts.deadlineInMs }),
    ...opts.input,
  };
  const result = await worker.runUntil(env.client.workflow.execute('attemptLedgerWorkflow', { workflowId, taskQueue: queue, args: [input] }).catch((e: unknown) => e));
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const timers = events.flatMap((e) => {
    const d = e.timerStartedEventAttributes?.startToFireTimeout;
    return d ? [Number(d.seconds ?? 0) * 1000 + Math.round((d.nanos ?? 0) / 1e6)] : [];
  });
  return { result, begins, calls, records, timers };
}

const fail = (type: string, extra: Omit<Exclude<Step, string>, 'type'> = {}): Step => ({ type, ...extra });

test('a first success: one begin, one call, the success recorded', async () => {
  const r = await run(['ok']);
  expect(r.result).toEqual({ end: 'succeeded', number: 1 });
  expect(r.begins).toEqual([{ number: 1, retry: false }]);
  expect(r.records).toEqual([{ kind: 'succeeded', number: 1 }]);
  expect(r.timers).toEqual([]);
});

test('retryable failures use up the budget: each attempt recorded, exponential backoff as durable timers', async () => {
  const r = await run([fail('BUSY'), fail('BUSY'), fail('BUSY'), 'ok'], { budget: 3 });
  expect(r.result).toEqual({ end: 'budget-used', number: 3 });
  expect(r.calls).toEqual([1, 2, 3]);
  expect(r.begins.map((b) => [b.number, b.retry])).toEqual([[1, false], [2, true], [3, true]]);
  expect(r.records.map((x) => [x.kind, 'class' in x ? x.class : null])).toEqual([['retrying', 'retryable'], ['retrying', 'retryable'], ['budget-used', 'retryable']]);
  expect(r.timers).toEqual([1_000, 2_000]);
});

test("a dependency's Retry-After is the wait; without it the backoff is capped", async () => {
  const r = await run([fail('BUSY', { details: [{ retryAfterMs: 120_000 }] }), fail('BUSY', { details: [{ retryAfterMs: 45_000 }] }), fail('BUSY'), fail('BUSY'), 'ok'], {
    budget: 5,
    input: { retryBackoff: { initialMs: 1_000, maxMs: 5_000, honourRetryAfter: true } },
  });
  expect(r.result).toEqual({ end: 'succeeded', number: 5 });
  expect(r.timers).toEqual([120_000, 45_000, 4_000, 5_000]);
  const ignoring = await run([fail('BUSY', { details: [{ retryAfterMs: 120_000 }] }), 'ok'], { input: { retryBackoff: { initialMs: 3_000, maxMs: 3_000, honourRetryAfter: false } } });
  expect(ignoring.timers).toEqual([3_000]);
});

test('outages as new attempts: recorded, never charged (3 outages and a success within a budget of 1)', async () => {
  const outage = fail('UNAVAILABLE', { details: [{ outage: true }] });
  const r = await run([outage, fail('DOWN'), outage, 'ok'], { budget: 1 });
  expect(r.result).toEqual({ end: 'succeeded', number: 4 });
  expect(r.calls).toEqual([1, 2, 3, 4]);
  expect(r.records.filter((x) => x.kind === 'retrying').map((x) => 'class' in x && [x.number, x.class, x.code])).toEqual([
    [1, 'outage', 'UNAVAILABLE'], [2, 'outage', 'DOWN'], [3, 'outage', 'UNAVAILABLE'],
  ]);
});

test('outages on the same attempt: not recorded, the same number begun again after the outage backoff', async () => {
  const r = await run([fail('DOWN'), fail('DOWN', { details: [{ retryAfterMs: 7_000 }] }), 'ok'], {
    budget: 1,
    input: { outages: { repeat: 'same-attempt', maxWaits: 5, backoff: { initialMs: 2_000, maxMs: 30_000, honourRetryAfter: true } } },
  });
  expect(r.result).toEqual({ end: 'succeeded', number: 1 });
  expect(r.begins).toEqual([{ number: 1, retry: false }, { number: 1, retry: true }, { number: 1, retry: true }]);
  expect(r.records).toEqual([{ kind: 'succeeded', number: 1 }]);
  expect(r.timers).toEqual([2_000, 7_000]);
});

test('outages on the same attempt are bounded: past maxWaits an outage is charged', async () => {
  const r = await run([fail('DOWN'), fail('DOWN'), fail('DOWN'), 'ok'], {
    budget: 2,
    input: { retryBackoff: { initialMs: 500, maxMs: 500, honourRetryAfter: false }, outages: { repeat: 'same-attempt', maxWaits: 1, backoff: { initialMs: 2_000, maxMs: 2_000, honourRetryAfter: true } } },
  });
  expect(r.result).toEqual({ end: 'budget-used', number: 2 });
  expect(r.calls).toEqual([1, 1, 2]);
  expect(r.records.map((x) => [x.kind, 'number' in x ? x.number : null])).toEqual([['retrying', 1], ['budget-used', 2]]);
  expect(r.timers).toEqual([2_000, 500]);
});

test('a terminal failure is the last attempt at once, even when it also says outage', async () => {
  const r = await run([fail('REJECTED', { nonRetryable: true, details: [{ code: 'CONTRACT_MISMATCH', outage: true }] }), 'ok']);
  expect(r.result).toEqual({ end: 'terminal', number: 1 });
  expect(r.calls).toEqual([1]);
  expect(r.records).toEqual([{ kind: 'terminal', number: 1, class: 'terminal', code: 'CONTRACT_MISMATCH', message: 'scripted REJECTED' }]);
});

test('a call whose worker stops heartbeating ends lease-expired and the next attempt runs', async () => {
  const r = await run(['hang', 'ok'], { input: { heartbeatTimeoutMs: 3_000 } });
  expect(r.result).toEqual({ end: 'succeeded', number: 2 });
  expect(r.records[0]).toMatchObject({ kind: 'retrying', number: 1, class: 'lease-expired', code: 'LEASE_EXPIRED', message: 'the worker running the call stopped heartbeating' });
});

test('the overall deadline passing while an attempt waits: the wait is cancelled and the deadline recorded', async () => {
  const r = await run([fail('BUSY', { details: [{ retryAfterMs: 3_600_000 }] }), 'ok'], { deadlineInMs: 600_000 });
  expect(r.result).toEqual({ end: 'expired', number: 0 });
  expect(r.calls).toEqual([1]);
  expect(r.records.map((x) => x.kind)).toEqual(['retrying', 'expired']);
  // The deadline timer first (its duration: the deadline less the workflow's start), then the Retry-After wait.
  expect(r.timers).toHaveLength(2);
  expect(r.timers[0]).toBeLessThanOrEqual(600_000);
  expect(r.timers[1]).toBe(3_600_000);
});

test('a deadline already passed: no attempt is begun', async () => {
  const r = await run(['ok'], { deadlineInMs: -1 });
  expect(r.result).toEqual({ end: 'expired', number: 0 });
  expect(r.begins).toEqual([]);
});

test('the projection refusing a begin, or stopping at a retry, ends the loop with its answer', async () => {
  const refused = await run([fail('BUSY'), 'ok'], { refuseAt: 2 });
  expect(refused.result).toEqual({ end: 'refused', number: 2 });
  expect(refused.calls).toEqual([1]);
  const stopped = await run([fail('BUSY'), 'ok'], { stopAt: 1 });
  expect(stopped.result).toEqual({ end: 'stopped', number: 1 });
  expect(stopped.timers).toEqual([]);
  expect(stopped.begins).toHaveLength(1);
});

test('a projection write that fails is not an attempt failure: the workflow fails with it', async () => {
  const r = await run(['ok'], { rejectSuccess: true });
  expect(r.result).toBeInstanceOf(WorkflowFailedError);
  expect((r.result as WorkflowFailedError).cause?.cause).toMatchObject({ type: 'PROJECTION_REJECTED' });
  expect(r.calls).toEqual([1]);
});
