/**
 * PO-6/PO-10/PO-11 post-processing inside the link workflow, through the REST API against the
 * real Temporal server, PostgreSQL and object store: a result object the scraper left behind is
 * replaced before the signed callback arrives, so the job FAILS with C17 (invalid document), C16
 * (the callback's SHA-256 does not match the bytes) or C18 (the database rejects it) and nothing
 * is applied; so does a result scraped ahead of the server clock (C17). A good result makes the job
 * SUCCEEDED and the graduation progress readable; a REFRESH whose result is older than the student's
 * data SUCCEEDS saying STALE_RESULT_IGNORED, the data as it was.
 */
import { randomUUID } from 'node:crypto';
import { snakeizeKeys } from '../../../src/domain/portal/result';
import { applyGraduationRules } from '../../../src/services/portal/graduation-rules';
import { ObjectNotFoundError } from '../../../src/storage/object-store';
import type { S3ObjectStore } from '../../../src/storage/s3';
import { portalResultKey } from '../../../src/domain/portal/contracts';
import { testObjectStore, testObjectStoreEnv } from '../../support/object-store';
import { pollUntil } from '../../support/poll';
import { course, scrapeResult } from '../../support/portal-results';
import { startStack, type Stack } from '../../support/stack';
import { getJob, postCallback, postLink, startScriptedScraper, successBody, waitForJob, type ScriptedScraper } from './support';

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

/**
 * Starts a link job (LINK, or REFRESH for a user already linked) whose scraper writes its object but
 * leaves the callback to the test; resolves once the object exists.
 */
async function manualJob(studentId: string, user?: Awaited<ReturnType<Stack['newUser']>>) {
  scraper.modes.set(studentId, 'manual');
  const u = user ?? (await stack.newUser());
  const res = await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId, password: 'pw-manual-1' });
  expect(res.statusCode).toBe(202);
  const jobId = res.json().jobId as string;
  const key = portalResultKey(stack.config.objectStore.prefix, jobId, 1);
  await pollUntil(
    () => store.get(key).then(() => true, (err: unknown) => (err instanceof ObjectNotFoundError ? false : Promise.reject(err))),
    (found) => found,
    { describe: `the scraper's object ${key}`, timeoutMs: 30_000, maxIntervalMs: 200 },
  );
  return { ...u, jobId, key };
}

async function callBack(jobId: string, key: string, sha256: string | null) {
  const res = await postCallback(stack, successBody(stack, jobId, key, sha256), { attempt: 1 });
  expect(res.statusCode).toBe(202);
}

const studentRow = (userId: string) => stack.db.student.findUnique({ where: { userId_portalType: { userId, portalType: 'suwon' } } });

test('an invalid result document → FAILED C17, nothing applied, no link', async () => {
  const j = await manualJob(`s17-${randomUUID().slice(0, 6)}`);
  const bad = scrapeResult('20221234', new Date().toISOString(), { academicRecord: { creditsAttempted: -1, creditsEarned: 0, gpa: null } });
  const { sha256 } = await store.put(j.key, Buffer.from(JSON.stringify(snakeizeKeys(bad))), 'application/json');
  await callBack(j.jobId, j.key, sha256);
  const job = await waitForJob(stack, j.auth, j.jobId);
  expect(job).toMatchObject({ status: 'FAILED', errorCode: 'C17' });
  expect(job.errorMessage).toContain('academicRecord.creditsAttempted');
  expect(await studentRow(j.userId)).toBeNull();
  expect(await stack.db.portalLink.count({ where: { userId: j.userId } })).toBe(0);
});

test('a SHA-256 that does not match the object → FAILED C16, nothing applied', async () => {
  const j = await manualJob(`s16-${randomUUID().slice(0, 6)}`);
  await callBack(j.jobId, j.key, 'ab'.repeat(32));
  expect(await waitForJob(stack, j.auth, j.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'C16' });
  expect(await studentRow(j.userId)).toBeNull();
});

test('a result the database rejects → FAILED C18, nothing applied', async () => {
  const j = await manualJob(`s18-${randomUUID().slice(0, 6)}`);
  const bad = scrapeResult('20221234', new Date().toISOString(), { semesters: [{ year: 2024, term: '1', courses: [course('CS101', { courseName: 'nul \u0000 name' })] }] });
  const { sha256 } = await store.put(j.key, Buffer.from(JSON.stringify(snakeizeKeys(bad))), 'application/json');
  await callBack(j.jobId, j.key, sha256);
  expect(await waitForJob(stack, j.auth, j.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'C18' });
  expect(await studentRow(j.userId)).toBeNull();
});

test('a good result → SUCCEEDED with its summary, the link LINKED, and the graduation progress readable', async () => {
  await applyGraduationRules(stack.db, {
    portalType: 'suwon',
    rules: [{ kind: 'PRIMARY', name: 'flow CS', department: 'Computer Science', major: 'Computer Science', admissionYearFrom: 2020, totalCredits: 130 }],
  });
  const u = await stack.newUser();
  const res = await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId: `ok-${randomUUID().slice(0, 6)}`, password: 'pw-auto-1' });
  const jobId = res.json().jobId as string;
  expect(await waitForJob(stack, u.auth, jobId)).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
  const summary = await stack.app.inject({ method: 'GET', url: `/portal/link/jobs/${jobId}/summary`, headers: u.auth });
  expect(summary.json()).toMatchObject({ jobId, summary: { creditsEarned: 7, semesters: 3, courses: 5, designatedCourses: 2 } });
  expect(await stack.db.portalLink.findFirst({ where: { userId: u.userId } })).toMatchObject({ status: 'LINKED', lastJobId: jobId });
  const progress = await stack.app.inject({ method: 'GET', url: '/api/graduation/progress?portalType=suwon', headers: u.auth });
  expect(progress.statusCode).toBe(200);
  expect(progress.json()).toMatchObject({ met: false, creditsEarned: 7, missing: [{ requirement: 'PRIMARY:TOTAL', type: 'CREDITS_SHORT', credits: 123 }] });
  expect((await getJob(stack, u.auth, jobId)).status).toBe('SUCCEEDED');
});

test('a result scraped in 2099 → FAILED C17 (ahead of the server clock), nothing applied', async () => {
  const j = await manualJob(`s2099-${randomUUID().slice(0, 6)}`);
  const { sha256 } = await store.put(j.key, Buffer.from(JSON.stringify(snakeizeKeys(scrapeResult('20221234', '2099-01-01T00:00:00.000Z')))), 'application/json');
  await callBack(j.jobId, j.key, sha256);
  const job = await waitForJob(stack, j.auth, j.jobId);
  expect(job).toMatchObject({ status: 'FAILED', errorCode: 'C17' });
  expect(job.errorMessage).toContain('ahead of the server clock');
  expect(await studentRow(j.userId)).toBeNull();
});

test("a REFRESH whose result is older than the student's data → SUCCEEDED with resultCode STALE_RESULT_IGNORED, the data as it was", async () => {
  const studentId = `stale-${randomUUID().slice(0, 6)}`;
  const u = await stack.newUser();
  const link = await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId, password: 'pw-auto-1' });
  const linked = await waitForJob(stack, u.auth, link.json().jobId as string);
  expect(linked).toMatchObject({ status: 'SUCCEEDED', resultCode: null });
  const before = await studentRow(u.userId);

  const j = await manualJob(studentId, u);
  const row = await stack.db.portalLinkJob.findUniqueOrThrow({ where: { id: j.jobId } });
  expect(row.kind).toBe('REFRESH');
  const older = scrapeResult('20221234', new Date(row.createdAt.getTime() - 60_000).toISOString());
  const { sha256 } = await store.put(j.key, Buffer.from(JSON.stringify(snakeizeKeys(older))), 'application/json');
  await callBack(j.jobId, j.key, sha256);
  expect(await waitForJob(stack, u.auth, j.jobId)).toMatchObject({ status: 'SUCCEEDED', errorCode: null, resultCode: 'STALE_RESULT_IGNORED' });
  expect(await studentRow(u.userId)).toEqual(before);
});
