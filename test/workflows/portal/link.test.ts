/**
 * PO-2/PO-5/PO-7 the link workflow on the time-skipping test server with in-memory activities: the
 * happy path through every state, failures from each state with their codes, the callback deadline
 * (a durable timer: CALLBACK_TIMEOUT), a recovered start without a password, repeated callbacks
 * applied once, a portal outage retried, and a late duplicate start doing nothing.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { PortalLinkJobStatus } from '../../../src/domain/portal/job-state';
import type { PortalLinkWorkflowResult } from '../../../src/domain/portal/contracts';
import { bundle, createTimeSkippingEnv } from '../harness';
import { testDataConverter } from '../../support/temporal';
import { fakePoActivities, linkInput, SUMMARY, TEST_POLICY, type ApplyStep, type ScrapeStep } from './fakes';

let env: TestWorkflowEnvironment;
let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  env = await createTimeSkippingEnv();
  workflowBundle = await bundle();
}, 120_000);
afterAll(async () => env?.teardown());

interface RunOptions {
  apply?: ApplyStep;
  password?: string | null;
  initial?: PortalLinkJobStatus;
  policy?: typeof TEST_POLICY;
}

async function run(steps: ScrapeStep[], opts: RunOptions = {}) {
  const fakes = fakePoActivities(env.client.workflow, steps, opts.apply, opts.initial);
  const id = randomUUID();
  const queues = { jobs: `po-wf-${id}`, portal: `po-portal-${id}` };
  const dataConverter = testDataConverter();
  const jobsWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: queues.jobs, workflowBundle, activities: fakes.jobs, dataConverter });
  const portalWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: queues.portal, activities: fakes.portal, dataConverter });
  const result = await portalWorker.runUntil(
    jobsWorker.runUntil(async () => {
      const handle = await env.client.workflow.start('portalLinkWorkflow', {
        workflowId: `portal-link:${id}`,
        taskQueue: queues.jobs,
        args: [linkInput(queues, id, { password: opts.password, policy: opts.policy })],
      });
      const result = (await handle.result()) as PortalLinkWorkflowResult;
      return { result, history: await handle.fetchHistory() };
    }),
  );
  return { ...fakes, ...result };
}

test('a success walks QUEUED → RUNNING → POST_PROCESSING → SUCCEEDED with the summary', async () => {
  const r = await run([{ ok: true }]);
  expect(r.result).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
  expect(r.transitions).toEqual(['RUNNING', 'POST_PROCESSING', 'SUCCEEDED']);
  expect(r.job.summary).toEqual(SUMMARY);
  expect(r.applies).toHaveLength(1);
  expect(r.applies[0]).toMatchObject({ resultKey: r.job.resultKey, sha256: 'a'.repeat(64), jobCreatedAt: '2026-12-01T15:00:00.000Z' });
  expect(r.scrapes[0]).toMatchObject({ password: 'hunter2-portal', studentId: '20231234', callbackUrl: expect.stringContaining('/internal/scrape-results') });
});

/** The activity types scheduled on task queues, and the number of local activities run, of a history. */
function activitiesOf(history: Awaited<ReturnType<typeof run>>['history']) {
  const events = history.events ?? [];
  const scheduled = events.flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityType?.name ? [e.activityTaskScheduledEventAttributes.activityType.name] : []));
  const markers = events.flatMap((e) => (e.markerRecordedEventAttributes?.markerName ? [e.markerRecordedEventAttributes.markerName] : []));
  return { scheduled, local: markers.filter((m) => m === 'core_local_activity').length };
}

test('after the callback one local activity applies the result and SUCCEEDS the job: the scrape is the only activity task', async () => {
  const r = await run([{ ok: true }]);
  expect(r.result.status).toBe('SUCCEEDED');
  // RUNNING, then the apply with its SUCCEEDED move; POST_PROCESSING was the callback's (the API's) move.
  expect(activitiesOf(r.history)).toEqual({ scheduled: ['scrapePortal'], local: 2 });
  expect(r.transitions).toEqual(['RUNNING', 'POST_PROCESSING', 'SUCCEEDED']);
  expect(r.applies).toHaveLength(1);
});

test('a callback from an API that did not move the job: the workflow makes the POST_PROCESSING move itself', async () => {
  const r = await run([{ ok: true, apiMoves: false }]);
  expect(r.result).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
  expect(activitiesOf(r.history)).toEqual({ scheduled: ['scrapePortal'], local: 3 });
  expect(r.transitions).toEqual(['RUNNING', 'POST_PROCESSING', 'SUCCEEDED']);
  expect(r.job.summary).toEqual(SUMMARY);
});

test('PO-7: a callback delivered three times is applied once', async () => {
  const r = await run([{ ok: true, callbacks: 3 }]);
  expect(r.result.status).toBe('SUCCEEDED');
  expect(r.applies).toHaveLength(1);
  expect(r.transitions).toEqual(['RUNNING', 'POST_PROCESSING', 'SUCCEEDED']);
});

test('wrong credentials: RUNNING → FAILED PORTAL_CREDENTIALS_INVALID, one scrape, no retry', async () => {
  const r = await run([{ fail: 'non-retryable', code: 'PORTAL_CREDENTIALS_INVALID' }, { ok: true }]);
  expect(r.result).toMatchObject({ status: 'FAILED', errorCode: 'PORTAL_CREDENTIALS_INVALID' });
  expect(r.transitions).toEqual(['RUNNING', 'FAILED']);
  expect(r.scrapes).toHaveLength(1);
  expect(r.applies).toHaveLength(0);
});

test('a portal outage is retried by the scrape activity, then the job SUCCEEDS', async () => {
  const outage: ScrapeStep = { fail: 'retryable', code: 'PORTAL_UNAVAILABLE' };
  const r = await run([outage, outage, { ok: true }]);
  expect(r.result.status).toBe('SUCCEEDED');
  expect(r.scrapes).toHaveLength(3);
});

test('a failure callback: RUNNING → FAILED with the scraper\'s code', async () => {
  const r = await run([{ callbackFailed: 'PORTAL_MARKUP_UNEXPECTED' }]);
  expect(r.result).toMatchObject({ status: 'FAILED', errorCode: 'PORTAL_MARKUP_UNEXPECTED' });
  expect(r.transitions).toEqual(['RUNNING', 'FAILED']);
});

test('the callback deadline: the scrape "succeeded" but no callback came → FAILED CALLBACK_TIMEOUT (time skipped)', async () => {
  const r = await run([{ silent: true }], { policy: { ...TEST_POLICY, callbackDeadlineMs: 30 * 60_000 } });
  expect(r.result).toMatchObject({ status: 'FAILED', errorCode: 'CALLBACK_TIMEOUT' });
  expect(r.transitions).toEqual(['RUNNING', 'FAILED']);
  expect(r.applies).toHaveLength(0);
});

test.each([['C16'], ['C17'], ['C18']])('post-processing %s: POST_PROCESSING → FAILED with the code', async (code) => {
  const r = await run([{ ok: true }], { apply: { fail: code } });
  expect(r.result).toMatchObject({ status: 'FAILED', errorCode: code });
  expect(r.transitions).toEqual(['RUNNING', 'POST_PROCESSING', 'FAILED']);
});

test('PO-3: a start recovered without the password FAILS PORTAL_CREDENTIALS_REQUIRED and never scrapes', async () => {
  const r = await run([{ ok: true }], { password: null });
  expect(r.result).toMatchObject({ status: 'FAILED', errorCode: 'PORTAL_CREDENTIALS_REQUIRED' });
  expect(r.transitions).toEqual(['RUNNING', 'FAILED']);
  expect(r.scrapes).toHaveLength(0);
});

test('DC-3: a late duplicate start of a finished job does nothing', async () => {
  const r = await run([{ ok: true }], { initial: 'SUCCEEDED' });
  expect(r.result).toMatchObject({ status: 'SUCCEEDED' });
  expect(r.transitions).toEqual([]);
  expect(r.scrapes).toHaveLength(0);
});
