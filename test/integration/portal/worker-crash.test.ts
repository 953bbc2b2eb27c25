/**
 * PO-5/DC-2: the `portal` worker, run as its own process (src/workers/main.ts --queue portal), is SIGKILLed in
 * the middle of a scrape (the portal holds the semesters page). Its heartbeats stop, the scrape's
 * heartbeat timeout ends attempt 1, attempt 2 runs on another worker: the job SUCCEEDS once — one
 * result object (attempt 2's), one accepted callback, the student's data applied once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { getFreePort } from '../../../src/dev/temporal-server';
import { ObjectNotFoundError } from '../../../src/storage/object-store';
import { createQueueWorker } from '../../../src/workers/queue-worker';
import { PORTAL_QUEUE } from '../../../src/domain/portal/contracts';
import { portalResultKey } from '../../../src/domain/portal/contracts';
import { testObjectStore, testObjectStoreEnv } from '../../support/object-store';
import { startPortalEmulator, type PortalEmulator } from '../../support/portal-emulator';
import { SEEDED } from '../../support/portal-seed';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';
import { postLink, waitForJob } from './support';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let stack: Stack;
let portal: PortalEmulator;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  portal = await startPortalEmulator();
  const apiPort = await getFreePort();
  const settings = {
    ...testObjectStoreEnv(),
    PORTAL_SUWON_BASE_URL: portal.url,
    PORTAL_CALLBACK_URL: `http://127.0.0.1:${apiPort}/internal/scrape-results`,
    PORTAL_REQUEST_TIMEOUT_MS: '240000',
  };
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: settings });
  await stack.app.listen({ host: '127.0.0.1', port: apiPort });
  env = {
    ...(process.env as Record<string, string>),
    ...settings,
    NODE_ENV: 'test',
    DATABASE_URL: stack.dbUrl,
    TEMPORAL_ADDRESS: stack.config.temporal.address,
    TEMPORAL_TASK_QUEUE_PREFIX: stack.config.temporal.taskQueuePrefix,
    SCHEDULES_ENABLED: 'false',
    LOG_LEVEL: 'error',
  };
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await stack?.stop();
  await portal?.close();
});

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

test('SIGKILL mid-scrape: attempt 2 on another worker completes the job once', async () => {
  const s = SEEDED.designatedAbsent;
  portal.setFaults({ slowMs: 180_000, slowPaths: ['/student/semesters'] }, s.studentId);
  // node itself (not the tsx wrapper), so that SIGKILL hits the worker process.
  const first = spawn(process.execPath, ['--import', 'tsx', 'src/workers/main.ts', '--queue', 'portal'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(first);

  const u = await stack.newUser();
  const logins = portal.stats().logins;
  const res = await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId: s.studentId, password: s.password });
  expect(res.statusCode).toBe(202);
  const jobId = (res.json() as { jobId: string }).jobId;
  // Logged in, then held on the semesters page: the scrape is under way in the child process.
  await pollUntil(() => portal.stats(), (st) => st.logins > logins && st.held > 0, { describe: 'the worker process to be held on the semesters page', timeoutMs: 240_000, maxIntervalMs: 500 });
  expect((await waitForJob(stack, u.auth, jobId, ['RUNNING'])).status).toBe('RUNNING');

  first.kill('SIGKILL'); // no graceful shutdown: the heartbeats just stop
  expect(await exited(first)).toBeNull();
  portal.clearFaults();

  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  try {
    worker = await createQueueWorker(PORTAL_QUEUE, { config: stack.config, db: stack.db, client: stack.client, connection });
    running = worker.run();
    const done = await waitForJob(stack, u.auth, jobId, ['SUCCEEDED', 'FAILED'], 180_000);
    expect(done).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
  } finally {
    worker?.shutdown();
    await running;
    await connection.close();
  }

  const callbacks = await stack.db.portalScrapeCallback.findMany({ where: { jobId } });
  expect(callbacks.map((c) => c.attempt)).toEqual([2]);
  const store = testObjectStore();
  const prefix = stack.config.objectStore.prefix;
  await expect(store.get(portalResultKey(prefix, jobId, 1))).rejects.toBeInstanceOf(ObjectNotFoundError);
  await expect(store.get(portalResultKey(prefix, jobId, 2))).resolves.toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  const students = await stack.db.student.findMany({ where: { userId: u.userId } });
  expect(students).toHaveLength(1);
  const courses = await stack.db.studentCourse.count({ where: { studentId: students[0]!.id } });
  expect(courses).toBe(s.semesters.reduce((n, m) => n + m.courses.length, 0));
}, 420_000);
