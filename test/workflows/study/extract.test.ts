/**
 * The study family's workflows on the time-skipping test server with in-memory activities: the
 * ST-4 attempt loop of studyCardExtractWorkflow (codes, retries up to max_attempts, an outage
 * waited out and not charged, no_ready_explanation skipped, a lost heartbeat), cancellation, and
 * the poller starting one child per polled version.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { testDataConverter } from '../../support/temporal';
import { pollUntil } from '../../support/poll';
import { bundle, createTimeSkippingEnv } from '../harness';
import { extractInput, fakeStudyCardActivities, type ExtractStep } from './fakes';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

/** How the one-activity attempt's answer goes wrong: thrown before its begin, or lost after its store (the worker died). */
type CallFault = 'before-begin' | 'after-store';

async function run(steps: ExtractStep[], opts: { ready?: boolean; cancelAfterStart?: boolean; storeFailures?: number; firstCall?: CallFault } = {}) {
  const queue = `st-${randomUUID()}`;
  const fakes = fakeStudyCardActivities(steps, { ready: opts.ready });
  const attempt = fakes.acts.runStudyCardAttempt;
  let fault = opts.firstCall;
  fakes.acts.runStudyCardAttempt = async (a) => {
    const f = fault;
    fault = undefined;
    if (f === 'before-begin') throw new Error('Connection terminated unexpectedly');
    const r = await attempt(a);
    if (f === 'after-store') throw new Error('the answer was lost');
    return r;
  };
  const store = fakes.acts.storeStudyCards;
  let storeFailures = opts.storeFailures ?? 0;
  fakes.acts.storeStudyCards = async (a) => {
    if (storeFailures-- > 0) {
      fakes.log.push('storeStudyCards failed');
      throw new Error('Connection terminated unexpectedly'); // a transient database failure: retryable
    }
    return store(a);
  };
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle, activities: fakes.acts, dataConverter: testDataConverter() });
  const workflowId = `wf-${randomUUID()}`;
  const outcome = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('studyCardExtractWorkflow', { taskQueue: queue, workflowId, args: [extractInput(queue)] });
    if (opts.cancelAfterStart) {
      await pollUntil(() => fakes.log.includes('extractStudyCards'), Boolean, { describe: 'the extraction activity to start', maxIntervalMs: 100 });
      await handle.cancel();
    }
    return handle.result().then((r: unknown) => r, (err: unknown) => err);
  });
  return { outcome, workflowId, ...fakes };
}

/** The activity types a run scheduled on a task queue, and those it ran as local activities (markers). */
async function activityKinds(workflowId: string): Promise<{ scheduled: string[]; local: string[] }> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : []));
  const local = events.flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_local_activity') return [];
    const data = m.details?.data?.payloads?.[0]?.data;
    return [data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type ?? '' : ''];
  });
  return { scheduled, local };
}

const aiFailure = (type: string): ExtractStep => ({ type });

test('a clean run: one attempt, one activity that begins, extracts and stores; no other write', async () => {
  const r = await run(['ok']);
  expect(r.outcome).toEqual({ jobId: expect.any(String), status: 'completed', errorCode: null, attempts: 1 });
  expect(r.log).toEqual(['runStudyCardAttempt', 'beginStudyCardAttempt', 'extractStudyCards', 'storeStudyCards']);
  expect(await activityKinds(r.workflowId)).toEqual({ scheduled: ['runStudyCardAttempt'], local: [] });
});

test('a store the call could not make is made by the workflow: local attempts, then the study-cards queue; completed once, one AI call', async () => {
  const r = await run(['ok'], { storeFailures: 5 });
  expect(r.outcome).toEqual({ jobId: expect.any(String), status: 'completed', errorCode: null, attempts: 1 });
  // One inside the call, then LOCAL_PROJECTION_RETRY's four local attempts.
  expect(r.log.filter((n) => n === 'storeStudyCards failed')).toHaveLength(5);
  expect(r.log.filter((n) => n === 'storeStudyCards')).toHaveLength(1);
  expect((await activityKinds(r.workflowId)).scheduled).toEqual(['runStudyCardAttempt', 'storeStudyCards']);
  expect(r.calls()).toBe(1);
});

test('a call that failed before its begin is charged (unknown) and the next attempt begins at 2', async () => {
  const r = await run(['ok'], { firstCall: 'before-begin' });
  expect(r.outcome).toMatchObject({ status: 'completed', attempts: 2 });
  expect(r.log).toEqual(['failStudyCardCall', 'runStudyCardAttempt', 'beginStudyCardAttempt', 'extractStudyCards', 'storeStudyCards']);
  expect(r.job).toMatchObject({ status: 'completed', attempts: 2 });
});

test('a call whose answer was lost after its store committed ends completed, without another attempt', async () => {
  const r = await run(['ok'], { firstCall: 'after-store' });
  expect(r.outcome).toEqual({ jobId: expect.any(String), status: 'completed', errorCode: null, attempts: 1 });
  expect(r.log.filter((n) => n === 'runStudyCardAttempt')).toHaveLength(1);
  expect(r.log.at(-1)).toBe('failStudyCardCall');
  expect(r.calls()).toBe(1);
});

test('parse_fail (AI_MALFORMED_OUTPUT) is retried once, then completes at attempt 2', async () => {
  const r = await run([aiFailure('AI_MALFORMED_OUTPUT'), 'ok']);
  expect(r.outcome).toMatchObject({ status: 'completed', attempts: 2 });
  expect(r.log).toEqual([
    'runStudyCardAttempt', 'beginStudyCardAttempt', 'extractStudyCards', 'failStudyCardCall',
    'runStudyCardAttempt', 'beginStudyCardAttempt', 'extractStudyCards', 'storeStudyCards',
  ]);
});

test.each([
  ['AI_MALFORMED_OUTPUT', 'parse_fail'],
  ['AI_TIMEOUT', 'llm_timeout'],
  ['AI_BAD_REQUEST', 'unknown'],
])('%s on every attempt → failed %s after max_attempts, the workflow failed', async (type, code) => {
  const r = await run([aiFailure(type)]);
  expect(r.outcome).toBeInstanceOf(WorkflowFailedError);
  expect((r.outcome as WorkflowFailedError).cause).toMatchObject({ type: 'STUDY_EXTRACTION_FAILED' });
  expect(r.job).toMatchObject({ status: 'failed', errorCode: code, attempts: 2 });
  expect(r.calls()).toBe(2);
});

test('an outage (AI_UPSTREAM_UNAVAILABLE) is waited out on the same attempt: not charged', async () => {
  const r = await run([aiFailure('AI_UPSTREAM_UNAVAILABLE'), aiFailure('AI_RATE_LIMITED'), 'ok']);
  expect(r.outcome).toMatchObject({ status: 'completed', attempts: 1 });
  expect(r.calls()).toBe(3);
  expect(r.log.filter((n) => n === 'failStudyCardCall')).toEqual([]);
});

test('no_ready_explanation at begin: skipped, the AI never called', async () => {
  const r = await run(['ok'], { ready: false });
  expect(r.outcome).toMatchObject({ status: 'skipped', errorCode: 'no_ready_explanation', attempts: 1 });
  expect(r.calls()).toBe(0);
});

test('no_ready_explanation found during the call: skipped, never retried', async () => {
  const r = await run([{ type: 'STUDY_EXTRACTION_ATTEMPT_FAILED', details: [{ code: 'no_ready_explanation' }] }, 'ok']);
  expect(r.outcome).toMatchObject({ status: 'skipped', errorCode: 'no_ready_explanation' });
  expect(r.calls()).toBe(1);
});

test('a worker that stops heartbeating: the attempt ends unknown and the next one runs', async () => {
  const r = await run(['hang', 'ok']);
  expect(r.outcome).toMatchObject({ status: 'completed', attempts: 2 });
});

test('a cancelled extraction closes its job failed', async () => {
  const r = await run(['hang'], { cancelAfterStart: true });
  expect(r.outcome).toBeInstanceOf(WorkflowFailedError);
  expect(r.log).toContain('abandonStudyCardJob');
  expect(r.job.status).toBe('failed');
});

test('the poller starts one extraction child per polled version; a version started before is not started again', async () => {
  const queue = `st-poll-${randomUUID()}`;
  const polled = [extractInput(queue, { jobId: randomUUID(), sourceId: randomUUID() }), extractInput(queue, { jobId: randomUUID(), sourceId: randomUUID() })];
  const fakes = fakeStudyCardActivities(['ok'], { polled });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle, activities: fakes.acts, dataConverter: testDataConverter() });
  await worker.runUntil(async () => {
    const input = { limit: 10, sourceKinds: ['study_question'], restartGraceSeconds: 60 };
    const first = await env.client.workflow.execute('studyCardPollWorkflow', { taskQueue: queue, workflowId: `poll-${randomUUID()}`, args: [input] });
    expect(first).toEqual({ enqueued: 2, restarted: 0 });
    for (const p of polled) {
      const id = `study-card-extract:${p.sourceKind}:${p.sourceId}:${p.sourceVersion}`;
      await expect(env.client.workflow.getHandle(id).result()).resolves.toMatchObject({ status: 'completed' });
    }
    // The same versions polled again (a lost result): their workflow IDs are taken for good (REJECT_DUPLICATE).
    const again = await env.client.workflow.execute('studyCardPollWorkflow', { taskQueue: queue, workflowId: `poll-${randomUUID()}`, args: [input] });
    expect(again).toEqual({ enqueued: 2, restarted: 0 });
    // One attempt per child (the fakes share one job row, so only the first child's stores).
    expect(fakes.log.filter((n) => n === 'runStudyCardAttempt')).toHaveLength(2);
  });
});
