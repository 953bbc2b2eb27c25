/**
 * PO-1 … PO-4 through the REST API against the real Temporal server, PostgreSQL and object store
 * (moto), with a scripted scraper on the `portal` queue that writes a real result object and posts
 * a really signed callback, and the real post-processing: a LINK walks to SUCCEEDED with its
 * summary and duration, the next request is a REFRESH; Idempotency-Key replays and C07; 20
 * concurrent identical requests make one job; one active job per user and portal (409 naming it);
 * wrong credentials; another user's job is 404; the password is stored nowhere.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { S3ObjectStore } from '../../../src/storage/s3';
import { startStack, type Stack } from '../../support/stack';
import { testObjectStore, testObjectStoreEnv } from '../../support/object-store';
import { getJob, postLink, startScriptedScraper, waitForJob, type ScriptedScraper } from './support';

let stack: Stack;
let store: S3ObjectStore;
let scraper: ScriptedScraper;

beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: testObjectStoreEnv() });
  store = testObjectStore();
  scraper = await startScriptedScraper(stack, store);
}, 120_000);
afterAll(async () => {
  await scraper?.stop();
  store?.close();
  await stack?.stop();
});

const PASSWORD = 'Pw-never-stored-7f3a9c';
const body = (studentId: string, over: object = {}) => ({ portalType: 'suwon', studentId, password: PASSWORD, ...over });

test('a LINK job walks to SUCCEEDED with its summary and duration; the next request is a REFRESH', async () => {
  const u = await stack.newUser();
  const res = await postLink(stack, u.auth, randomUUID(), body('20231001'));
  expect(res.statusCode).toBe(202);
  const accepted = res.json();
  expect(accepted).toEqual({ jobId: expect.any(String), status: 'accepted', kind: 'LINK', pollingEndpoint: `/portal/link/jobs/${accepted.jobId}` });
  expect(res.headers.location).toBe(accepted.pollingEndpoint);

  const done = await waitForJob(stack, u.auth, accepted.jobId);
  expect(done).toMatchObject({ status: 'SUCCEEDED', kind: 'LINK', errorCode: null });
  expect(scraper.passwords.get(accepted.jobId)).toBe(PASSWORD);

  const summary = await stack.app.inject({ method: 'GET', url: `/portal/link/jobs/${accepted.jobId}/summary`, headers: u.auth });
  expect(summary.statusCode).toBe(200);
  expect(summary.json()).toMatchObject({ jobId: accepted.jobId, summary: { studentId: '20231001', name: 'Hong Gildong', semesters: 3, designatedCourses: 2 } });

  const duration = (await stack.app.inject({ method: 'GET', url: `/portal/link/jobs/${accepted.jobId}/duration`, headers: u.auth })).json();
  expect(duration).toMatchObject({ jobId: accepted.jobId, status: 'SUCCEEDED', finished: true, startedAt: expect.any(String), postProcessingAt: expect.any(String), finishedAt: expect.any(String) });
  expect(duration.elapsedMs).toBe(Date.parse(duration.finishedAt) - Date.parse(duration.createdAt));

  const link = await stack.db.portalLink.findUniqueOrThrow({ where: { userId_portalType: { userId: u.userId, portalType: 'suwon' } } });
  expect(link).toMatchObject({ status: 'LINKED', studentId: '20231001', lastJobId: accepted.jobId });

  const again = await postLink(stack, u.auth, randomUUID(), body('20231001'));
  expect(again.statusCode).toBe(202);
  expect(again.json().kind).toBe('REFRESH');
  await waitForJob(stack, u.auth, again.json().jobId, ['SUCCEEDED']);
});

test('the same key and request answer the same job; the same key with another student id → 409 IDEMPOTENCY_KEY_CONFLICT (C07)', async () => {
  const u = await stack.newUser();
  const key = randomUUID();
  const first = await postLink(stack, u.auth, key, body('20231002'));
  // The password is not part of the comparison: a replay with another one is the same request.
  const replay = await postLink(stack, u.auth, key, body('20231002', { password: 'another-password' }));
  expect(replay.statusCode).toBe(202);
  expect(replay.json().jobId).toBe(first.json().jobId);
  const conflict = await postLink(stack, u.auth, key, body('20231003'));
  expect(conflict.statusCode).toBe(409);
  expect(conflict.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(conflict.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT', errors: [{ path: 'body.studentId' }] });
  expect(await stack.db.portalLinkJob.count({ where: { userId: u.userId } })).toBe(1);
  await waitForJob(stack, u.auth, first.json().jobId);
});

test('20 concurrent identical requests make one job, and every answer names it', async () => {
  const u = await stack.newUser();
  const key = randomUUID();
  const answers = await Promise.all(Array.from({ length: 20 }, () => postLink(stack, u.auth, key, body('20231004'))));
  expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(202));
  const ids = new Set(answers.map((a) => a.json().jobId as string));
  expect(ids.size).toBe(1);
  expect(await stack.db.portalLinkJob.count({ where: { userId: u.userId } })).toBe(1);
  const [jobId] = [...ids];
  await waitForJob(stack, u.auth, jobId!, ['SUCCEEDED']);
  expect(scraper.calls.get(jobId!)).toBe(1);
});

test('one active job per user and portal: another key while one runs → 409 PORTAL_LINK_JOB_ACTIVE naming it; after it, a new job', async () => {
  const u = await stack.newUser();
  scraper.modes.set('20231005', 'hold');
  const first = (await postLink(stack, u.auth, randomUUID(), body('20231005'))).json();
  await waitForJob(stack, u.auth, first.jobId, ['RUNNING']);
  const [a, b] = await Promise.all([postLink(stack, u.auth, randomUUID(), body('20231005')), postLink(stack, u.auth, randomUUID(), body('20231005'))]);
  for (const r of [a, b]) {
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ code: 'PORTAL_LINK_JOB_ACTIVE', activeJobId: first.jobId, activeJobStatus: 'RUNNING', pollingEndpoint: first.pollingEndpoint });
  }
  const summary = await stack.app.inject({ method: 'GET', url: `/portal/link/jobs/${first.jobId}/summary`, headers: u.auth });
  expect(summary.statusCode).toBe(409);
  expect(summary.json()).toMatchObject({ code: 'PORTAL_LINK_JOB_NOT_SUCCEEDED', jobStatus: 'RUNNING' });
  scraper.release('20231005');
  await waitForJob(stack, u.auth, first.jobId, ['SUCCEEDED']);
  const next = await postLink(stack, u.auth, randomUUID(), body('20231005'));
  expect(next.statusCode).toBe(202);
  expect(next.json()).toMatchObject({ kind: 'REFRESH' });
  expect(next.json().jobId).not.toBe(first.jobId);
  await waitForJob(stack, u.auth, next.json().jobId);
});

test('two keys at once: the database lets one job through, the other answers 409 naming it', async () => {
  const u = await stack.newUser();
  scraper.modes.set('20231006', 'hold');
  const answers = await Promise.all(Array.from({ length: 6 }, () => postLink(stack, u.auth, randomUUID(), body('20231006'))));
  const accepted = answers.filter((a) => a.statusCode === 202);
  expect(accepted).toHaveLength(1);
  for (const r of answers.filter((a) => a.statusCode !== 202)) expect(r.json()).toMatchObject({ code: 'PORTAL_LINK_JOB_ACTIVE', activeJobId: accepted[0]!.json().jobId });
  scraper.release('20231006');
  await waitForJob(stack, u.auth, accepted[0]!.json().jobId);
});

test('wrong credentials: FAILED PORTAL_CREDENTIALS_INVALID at once (no retry); a linked account is marked LOGIN_REQUIRED', async () => {
  const u = await stack.newUser();
  const linked = (await postLink(stack, u.auth, randomUUID(), body('20231007'))).json();
  await waitForJob(stack, u.auth, linked.jobId, ['SUCCEEDED']);
  scraper.modes.set('20231007', 'wrong-password');
  const refresh = (await postLink(stack, u.auth, randomUUID(), body('20231007'))).json();
  expect(refresh.kind).toBe('REFRESH');
  const failed = await waitForJob(stack, u.auth, refresh.jobId);
  expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'PORTAL_CREDENTIALS_INVALID' });
  expect(scraper.calls.get(refresh.jobId)).toBe(1);
  const link = await stack.db.portalLink.findUniqueOrThrow({ where: { userId_portalType: { userId: u.userId, portalType: 'suwon' } } });
  expect(link.status).toBe('LOGIN_REQUIRED');
});

test('bad requests: no key, unknown portal type, unknown fields → 400 problem+json; another user\'s job → 404', async () => {
  const u = await stack.newUser();
  const other = await stack.newUser();
  expect((await postLink(stack, u.auth, undefined, body('20231008'))).json()).toMatchObject({ status: 400, code: 'IDEMPOTENCY_KEY_MISSING' });
  expect((await postLink(stack, u.auth, randomUUID(), body('20231008', { portalType: 'yonsei' }))).json()).toMatchObject({ status: 400, code: 'PORTAL_TYPE_UNSUPPORTED' });
  expect((await postLink(stack, u.auth, randomUUID(), body('20231008', { extra: 1 }))).json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  expect((await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId: '20231008' })).json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  expect(await stack.db.portalLinkJob.count({ where: { userId: u.userId } })).toBe(0);

  const mine = (await postLink(stack, u.auth, randomUUID(), body('20231008'))).json();
  for (const suffix of ['', '/summary', '/duration']) {
    const res = await stack.app.inject({ method: 'GET', url: `/portal/link/jobs/${mine.jobId}${suffix}`, headers: other.auth });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
  }
  expect((await stack.app.inject({ method: 'GET', url: '/portal/link/jobs/not-a-uuid', headers: u.auth })).statusCode).toBe(400);
  await waitForJob(stack, u.auth, mine.jobId);
});

test('the password is stored nowhere: not in PostgreSQL, and not in the clear in the workflow history', async () => {
  const u = await stack.newUser();
  const res = (await postLink(stack, u.auth, randomUUID(), body('20231009'))).json();
  await waitForJob(stack, u.auth, res.jobId, ['SUCCEEDED']);
  const tables = await stack.db.$queryRaw<{ t: string }[]>`SELECT string_agg(t::text, '') AS t FROM (
    SELECT row_to_json(j)::text AS t FROM portal_link_jobs j UNION ALL SELECT row_to_json(i)::text FROM idempotency_records i
    UNION ALL SELECT row_to_json(c)::text FROM portal_scrape_callbacks c UNION ALL SELECT row_to_json(l)::text FROM portal_links l) x`;
  expect(tables[0]!.t).not.toContain(PASSWORD);
  const job = await stack.db.portalLinkJob.findUniqueOrThrow({ where: { id: res.jobId } });
  // A client without the payload codec reads what the server stores.
  const raw = new Client({ connection: stack.client.connection, namespace: stack.config.temporal.namespace });
  const history = await raw.workflow.getHandle(job.workflowId).fetchHistory();
  expect(JSON.stringify(history)).not.toContain(PASSWORD);
  expect(Buffer.from(JSON.stringify(history)).toString('base64')).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  expect((await getJob(stack, u.auth, res.jobId)).status).toBe('SUCCEEDED');
});
