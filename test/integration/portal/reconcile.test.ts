/**
 * PO-3 no outbox gap (SAN-4 pattern): the API dies between the commit of a job and the start of its
 * workflow (the starter throws). The job stays QUEUED; a same-key replay starts it with the
 * replayed password and it SUCCEEDS; a job nobody replays is started by the reconcile pass without
 * a password (never stored) and FAILS PORTAL_CREDENTIALS_REQUIRED instead of waiting forever; a
 * second pass starts nothing. An active job whose workflow was terminated is FAILED CANCELLED.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { PortalLinkReconcileReport } from '../../../src/activities/portal/reconcile';
import { maintenanceTaskQueue } from '../../../src/core/contracts';
import { requestPortalLink, type PortalLinkDeps } from '../../../src/services/portal/links';
import { isPortalType } from '../../../src/services/portal/adapters/registry';
import { createTemporalPortalLinkStarter, type PortalLinkStarter } from '../../../src/services/portal/starter';
import type { S3ObjectStore } from '../../../src/storage/s3';
import { testObjectStore, testObjectStoreEnv } from '../../support/object-store';
import { startStack, type Stack } from '../../support/stack';
import { startScriptedScraper, waitForJob, type ScriptedScraper } from './support';

let stack: Stack;
let store: S3ObjectStore;
let scraper: ScriptedScraper;
let real: PortalLinkStarter;
let deps: PortalLinkDeps;

beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: testObjectStoreEnv() });
  store = testObjectStore();
  scraper = await startScriptedScraper(stack, store);
  real = createTemporalPortalLinkStarter(stack.client, stack.config);
  deps = { db: stack.db, config: stack.config, starter: real, log: pino({ level: 'silent' }), isPortalType };
}, 120_000);
afterAll(async () => {
  await scraper?.stop();
  store?.close();
  await stack?.stop();
});

const crashing = (base: PortalLinkStarter): PortalLinkStarter => ({ ...base, start: () => Promise.reject(new Error('simulated crash between commit and start')) });

function reconcilePass(): Promise<PortalLinkReconcileReport> {
  return stack.client.workflow.execute('reconcilePortalLinkJobsWorkflow', {
    workflowId: `reconcile-portal-link-jobs-${randomUUID()}`,
    taskQueue: maintenanceTaskQueue(stack.config.temporal.taskQueuePrefix),
    args: [{ queues: stack.queues, graceSeconds: 0 }],
  });
}

test('a lost start: the job stays QUEUED; a same-key replay starts it with the password and it SUCCEEDS, once', async () => {
  const u = await stack.newUser();
  const key = randomUUID();
  const body = { portalType: 'suwon', studentId: '20235001', password: 'pw-replayed' };
  const { job } = await requestPortalLink({ ...deps, starter: crashing(real) }, u.userId, key, body);
  expect(job.status).toBe('QUEUED');
  expect(await real.state(job.workflowId)).toBe('missing');

  const replay = await requestPortalLink(deps, u.userId, key, body);
  expect(replay).toMatchObject({ replay: true, statusCode: 202 });
  expect(replay.job.id).toBe(job.id);
  expect(await waitForJob(stack, u.auth, job.id)).toMatchObject({ status: 'SUCCEEDED' });
  expect(scraper.passwords.get(job.id)).toBe('pw-replayed');
  await requestPortalLink(deps, u.userId, key, body); // a later replay starts nothing
  expect(scraper.calls.get(job.id)).toBe(1);
});

test('a lost start nobody replays: the reconcile pass starts it without a password → FAILED PORTAL_CREDENTIALS_REQUIRED; a second pass starts nothing', async () => {
  const u = await stack.newUser();
  const { job } = await requestPortalLink({ ...deps, starter: crashing(real) }, u.userId, randomUUID(), { portalType: 'suwon', studentId: '20235002', password: 'pw-lost' });
  const report = await reconcilePass();
  expect(report.started).toBeGreaterThanOrEqual(1);
  expect(await waitForJob(stack, u.auth, job.id)).toMatchObject({ status: 'FAILED', errorCode: 'PORTAL_CREDENTIALS_REQUIRED' });
  expect(scraper.calls.get(job.id)).toBeUndefined();
  const again = await reconcilePass();
  expect(again.started).toBe(0);
});

test('an active job whose workflow was terminated is FAILED CANCELLED by the pass', async () => {
  const u = await stack.newUser();
  scraper.modes.set('20235003', 'hold');
  const { job } = await requestPortalLink(deps, u.userId, randomUUID(), { portalType: 'suwon', studentId: '20235003', password: 'pw-term' });
  await waitForJob(stack, u.auth, job.id, ['RUNNING']);
  await stack.client.workflow.getHandle(job.workflowId).terminate('operator test');
  const report = await reconcilePass();
  expect(report.closedFailed).toBeGreaterThanOrEqual(1);
  expect(await waitForJob(stack, u.auth, job.id)).toMatchObject({ status: 'FAILED', errorCode: 'CANCELLED' });
  scraper.release('20235003');
});
