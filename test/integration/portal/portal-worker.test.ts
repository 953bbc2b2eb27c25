/**
 * PO-1 … PO-8 end to end with the real scraper: the API (listening on a real port, so the scraper
 * posts its signed callback over HTTP), the link workflow on the real Temporal server, the `portal`
 * queue worker of src/workers/main.ts --queue portal (createQueueWorker with the portal manifest's activities),
 * the portal emulator, the real object store (moto) and the real post-processing in PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { getFreePort } from '../../../src/dev/temporal-server';
import { createQueueWorker } from '../../../src/workers/queue-worker';
import { PORTAL_QUEUE } from '../../../src/domain/portal/contracts';
import { testObjectStoreEnv } from '../../support/object-store';
import { startPortalEmulator, type PortalEmulator } from '../../support/portal-emulator';
import { SEEDED } from '../../support/portal-seed';
import { startStack, type Stack } from '../../support/stack';
import { pollUntil } from '../../support/poll';
import { postLink, waitForJob } from './support';

let stack: Stack;
let portal: PortalEmulator;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  portal = await startPortalEmulator();
  const apiPort = await getFreePort();
  stack = await startStack({
    aiWorker: false,
    aiRunsWorker: false,
    env: {
      ...testObjectStoreEnv(),
      PORTAL_SUWON_BASE_URL: portal.url,
      PORTAL_CALLBACK_URL: `http://127.0.0.1:${apiPort}/internal/scrape-results`,
      PORTAL_REQUEST_TIMEOUT_MS: '5000',
    },
  });
  await stack.app.listen({ host: '127.0.0.1', port: apiPort });
  connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  worker = await createQueueWorker(PORTAL_QUEUE, { config: stack.config, db: stack.db, client: stack.client, connection });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await stack?.stop();
  await portal?.close();
});

afterEach(() => portal.clearFaults());

test('a seeded student is scraped from the portal, stored, called back and applied: SUCCEEDED with the portal data', async () => {
  const s = SEEDED.retakeAndCorrection;
  const u = await stack.newUser();
  const res = await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId: s.studentId, password: s.password });
  expect(res.statusCode).toBe(202);
  const done = await waitForJob(stack, u.auth, res.json().jobId);
  expect(done).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
  const summary = (await stack.app.inject({ method: 'GET', url: `/portal/link/jobs/${done.jobId}/summary`, headers: u.auth })).json();
  expect(summary.summary).toMatchObject({
    studentId: s.studentId,
    name: s.profile.name,
    department: s.profile.department,
    semesters: s.semesters.length,
    courses: s.semesters.reduce((n, m) => n + m.courses.length, 0),
    designatedCourses: 3,
  });
});

test('a wrong password FAILS the job with PORTAL_CREDENTIALS_INVALID, tried once', async () => {
  const s = SEEDED.freshman;
  const u = await stack.newUser();
  const before = portal.stats().failedLogins;
  const res = await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId: s.studentId, password: 'wrong-password' });
  const done = await waitForJob(stack, u.auth, res.json().jobId);
  expect(done).toMatchObject({ status: 'FAILED', errorCode: 'PORTAL_CREDENTIALS_INVALID' });
  expect(portal.stats().failedLogins - before).toBe(1);
});

test('a short maintenance window is waited out: the job still SUCCEEDS', async () => {
  const s = SEEDED.doubleMajorNoCertificate;
  portal.setFaults({ maintenance: true }, s.studentId);
  const u = await stack.newUser();
  const before = portal.stats().maintenanceAnswers;
  const res = await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId: s.studentId, password: s.password });
  await pollUntil(async () => portal.stats().maintenanceAnswers, (n) => n > before, { describe: 'the scraper to meet the maintenance page' });
  portal.clearFaults();
  const done = await waitForJob(stack, u.auth, res.json().jobId);
  expect(done).toMatchObject({ status: 'SUCCEEDED' });
});
