/**
 * PO-5 … PO-7 the signed callback against the real stack: a job waits RUNNING for its callback
 * (the scripted scraper writes the result object but does not call back), and the test posts
 * callbacks itself. Tampered body, other key order or whitespace, stale or future timestamp, wrong
 * secret, missing headers → 401 and nothing applied; a key outside the prefix or of another job, or
 * a scraped_at ahead of the server clock beyond the tolerance → 422; a replay is answered like the first (without a transaction), counted and applied once, and a replay with a bad signature is still 401; the second secret of a
 * rotation verifies; a checksum mismatch ends the job C16.
 */
import { randomUUID } from 'node:crypto';
import { portalMetrics } from '../../../src/services/portal/metrics';
import type { S3ObjectStore } from '../../../src/storage/s3';
import { ObjectNotFoundError } from '../../../src/storage/object-store';
import { portalResultKey } from '../../../src/domain/portal/contracts';
import { testObjectStore, testObjectStoreEnv } from '../../support/object-store';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';
import { postCallback, postLink, startScriptedScraper, successBody, waitForJob, type ScriptedScraper } from './support';

const NEW_SECRET = 'po-callback-secret-new-0123456789abcdef';
const OLD_SECRET = 'po-callback-secret-old-0123456789abcdef';

let stack: Stack;
let store: S3ObjectStore;
let scraper: ScriptedScraper;

beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: { ...testObjectStoreEnv(), PORTAL_CALLBACK_SECRETS: `${NEW_SECRET},${OLD_SECRET}` } });
  store = testObjectStore();
  scraper = await startScriptedScraper(stack, store);
}, 120_000);
afterAll(async () => {
  await scraper?.stop();
  store?.close();
  await stack?.stop();
});

/** A job RUNNING with its result object written at attempt 1 and no callback yet. */
async function waitingJob() {
  const u = await stack.newUser();
  const studentId = String(20240000 + Math.floor(Math.random() * 9999));
  scraper.modes.set(studentId, 'manual');
  const { jobId } = (await postLink(stack, u.auth, randomUUID(), { portalType: 'suwon', studentId, password: 'pw-callbacks' })).json() as { jobId: string };
  const key = portalResultKey(stack.config.objectStore.prefix, jobId, 1);
  // The scripted scraper counts its call before it writes the object: wait for the object itself.
  const { sha256 } = await pollUntil(
    () => store.get(key).catch((err: unknown) => (err instanceof ObjectNotFoundError ? undefined : Promise.reject(err))),
    (o): o is Awaited<ReturnType<typeof store.get>> => o !== undefined,
    { describe: 'the scrape to write its result object', timeoutMs: 30_000 },
  );
  return { u, jobId, key, sha256 };
}

const callbackRows = (jobId: string) => stack.db.portalScrapeCallback.count({ where: { jobId } });
const status = async (jobId: string) => (await stack.db.portalLinkJob.findUniqueOrThrow({ where: { id: jobId } })).status;

test('rejected signatures answer 401 problem+json and apply nothing; then the genuine callback completes the job', async () => {
  const j = await waitingJob();
  const raw = successBody(stack, j.jobId, j.key, j.sha256);
  const parsed = JSON.parse(raw) as Record<string, unknown>;
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()));
  const spaced = JSON.stringify(parsed, null, 2);
  // A minute beyond the 300 s tolerance each way: the requests may reach the server seconds later.
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, Promise<{ statusCode: number; json: () => { code: string } }>, string][] = [
    ['tampered body', postCallback(stack, raw, { attempt: 1, sendBody: raw.replace(j.sha256, 'b'.repeat(64)) }), 'CALLBACK_SIGNATURE_INVALID'],
    ['other key order', postCallback(stack, raw, { attempt: 1, sendBody: reordered }), 'CALLBACK_SIGNATURE_INVALID'],
    ['other whitespace', postCallback(stack, raw, { attempt: 1, sendBody: spaced }), 'CALLBACK_SIGNATURE_INVALID'],
    ['stale timestamp', postCallback(stack, raw, { attempt: 1, nowSeconds: now - 360 }), 'CALLBACK_TIMESTAMP_STALE'],
    ['future timestamp', postCallback(stack, raw, { attempt: 1, nowSeconds: now + 360 }), 'CALLBACK_TIMESTAMP_STALE'],
    ['wrong secret', postCallback(stack, raw, { attempt: 1, secret: 'not-a-configured-secret-0123456789ab' }), 'CALLBACK_SIGNATURE_INVALID'],
    ['no signature', postCallback(stack, raw, { attempt: 1, headers: { 'x-signature': '' } }), 'CALLBACK_SIGNATURE_MISSING'],
    ['malformed signature', postCallback(stack, raw, { attempt: 1, headers: { 'x-signature': 'md5=abc' } }), 'CALLBACK_SIGNATURE_INVALID'],
  ];
  for (const [what, res, code] of cases) {
    const r = await res;
    expect({ what, status: r.statusCode, code: r.json().code }).toEqual({ what, status: 401, code });
  }
  expect(await callbackRows(j.jobId)).toBe(0);
  expect(await status(j.jobId)).toBe('RUNNING');

  // The second secret of a rotation verifies too.
  const ok = await postCallback(stack, raw, { attempt: 1, secret: OLD_SECRET });
  expect(ok.statusCode).toBe(202);
  expect(ok.json()).toEqual({ jobId: j.jobId, attempt: 1, status: 'accepted' });
  expect((await waitForJob(stack, j.u.auth, j.jobId)).status).toBe('SUCCEEDED');
});

test('a replayed callback is answered like the first, counted, logged and applied once', async () => {
  const j = await waitingJob();
  const raw = successBody(stack, j.jobId, j.key, j.sha256);
  const before = await portalMetrics.callbackDuplicates();
  const first = await postCallback(stack, raw, { attempt: 1 });
  const second = await postCallback(stack, raw, { attempt: 1 });
  expect(first.statusCode).toBe(202);
  expect(second.statusCode).toBe(202);
  expect(second.json()).toEqual(first.json());
  expect(await portalMetrics.callbackDuplicates()).toBe(before + 1);
  expect((await waitForJob(stack, j.u.auth, j.jobId)).status).toBe('SUCCEEDED');
  const third = await postCallback(stack, raw, { attempt: 1 });
  expect(third.statusCode).toBe(202);
  expect(third.json()).toEqual(first.json());
  expect(await callbackRows(j.jobId)).toBe(1);
  // A repeat of a recorded callback is verified like any: a bad signature is refused, not answered as a duplicate.
  const counted = await portalMetrics.callbackDuplicates();
  const forged = await postCallback(stack, raw, { attempt: 1, secret: 'not-a-configured-secret-0123456789ab' });
  const tampered = await postCallback(stack, raw, { attempt: 1, sendBody: raw.replace('"SUCCEEDED"', '"FAILED"') });
  expect([forged.statusCode, forged.json().code, tampered.statusCode, tampered.json().code]).toEqual([401, 'CALLBACK_SIGNATURE_INVALID', 401, 'CALLBACK_SIGNATURE_INVALID']);
  expect(await portalMetrics.callbackDuplicates()).toBe(counted);
  const metrics = await stack.app.inject({ method: 'GET', url: '/metrics' });
  expect(metrics.body).toMatch(/^scrape_job_callback_duplicate_total \d+$/m);
  // A new attempt's callback for a finished job applies nothing either.
  const late = await postCallback(stack, successBody(stack, j.jobId, portalResultKey(stack.config.objectStore.prefix, j.jobId, 2), null), { attempt: 2 });
  expect(late.statusCode).toBe(409);
  expect(late.json().code).toBe('CALLBACK_JOB_NOT_ACTIVE');
  expect(await callbackRows(j.jobId)).toBe(1);
});

test('a success records its callback and moves the job to POST_PROCESSING together; a workflow not running → 409, neither kept', async () => {
  const j = await waitingJob();
  expect((await postCallback(stack, successBody(stack, j.jobId, j.key, j.sha256), { attempt: 1 })).statusCode).toBe(202);
  const moved = await stack.db.portalLinkJob.findUniqueOrThrow({ where: { id: j.jobId } });
  expect(moved).toMatchObject({ resultKey: j.key, resultSha256: j.sha256, postProcessingAt: expect.any(Date) });
  expect(['POST_PROCESSING', 'SUCCEEDED']).toContain(moved.status);

  // A RUNNING row whose workflow does not exist: the signal fails, the statement's writes roll back.
  const u = await stack.newUser();
  const orphan = await stack.db.portalLinkJob.create({
    data: { userId: u.userId, portalType: 'suwon', studentId: '20249999', kind: 'LINK', status: 'RUNNING', workflowId: `portal-link:${u.userId}:${randomUUID()}` },
  });
  const key = portalResultKey(stack.config.objectStore.prefix, orphan.id, 1);
  const r = await postCallback(stack, successBody(stack, orphan.id, key, null), { attempt: 1 });
  expect([r.statusCode, r.json().code]).toEqual([409, 'CALLBACK_JOB_NOT_ACTIVE']);
  expect(await callbackRows(orphan.id)).toBe(0);
  expect(await stack.db.portalLinkJob.findUniqueOrThrow({ where: { id: orphan.id } })).toMatchObject({ status: 'RUNNING', resultKey: null, postProcessingAt: null });
});

test('a scraped_at ahead of the server clock beyond the signature tolerance → 422 CALLBACK_SCRAPED_AT_IN_FUTURE, nothing recorded; within it is accepted', async () => {
  const j = await waitingJob();
  const scrapedAt = (at: string) => JSON.stringify({ ...(JSON.parse(successBody(stack, j.jobId, j.key, j.sha256)) as object), scraped_at: at });
  const tolerance = stack.config.portal.callbackToleranceSeconds;
  for (const at of ['2099-01-01T00:00:00.000Z', new Date(Date.now() + (tolerance + 120) * 1000).toISOString()]) {
    const r = await postCallback(stack, scrapedAt(at), { attempt: 1 });
    expect({ at, status: r.statusCode, code: r.json().code }).toEqual({ at, status: 422, code: 'CALLBACK_SCRAPED_AT_IN_FUTURE' });
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  }
  expect(await callbackRows(j.jobId)).toBe(0);
  expect(await status(j.jobId)).toBe('RUNNING');

  const ok = await postCallback(stack, scrapedAt(new Date(Date.now() + 10_000).toISOString()), { attempt: 1 });
  expect(ok.statusCode).toBe(202);
  expect((await waitForJob(stack, j.u.auth, j.jobId)).status).toBe('SUCCEEDED');
});

test('result keys outside the bucket, the prefix or the job\'s own scope → 422, nothing applied', async () => {
  const j = await waitingJob();
  const other = await waitingJob();
  const prefix = stack.config.objectStore.prefix;
  const wrong: [string, string][] = [
    ['other job', portalResultKey(prefix, other.jobId, 1)],
    ['outside prefix', `elsewhere/${j.jobId}/1.json`],
    ['escaping', `${prefix}${j.jobId}/../${other.jobId}/1.json`],
  ];
  for (const [what, key] of wrong) {
    const r = await postCallback(stack, successBody(stack, j.jobId, key, j.sha256), { attempt: 1 });
    expect({ what, status: r.statusCode, code: r.json().code }).toEqual({ what, status: 422, code: 'CALLBACK_RESULT_OUT_OF_SCOPE' });
  }
  const bucket = JSON.stringify({ ...JSON.parse(successBody(stack, j.jobId, j.key, j.sha256)), result_s3_bucket: 'another-bucket' });
  expect((await postCallback(stack, bucket, { attempt: 1 })).json().code).toBe('CALLBACK_RESULT_OUT_OF_SCOPE');
  expect((await postCallback(stack, successBody(stack, j.jobId, j.key, j.sha256), { attempt: 2 })).json().code).toBe('CALLBACK_ATTEMPT_MISMATCH');
  const invalid = await postCallback(stack, JSON.stringify({ job_id: j.jobId, status: 'SUCCEEDED' }), { attempt: 1 });
  expect(invalid.statusCode).toBe(400);
  expect(await callbackRows(j.jobId)).toBe(0);
  expect(await status(j.jobId)).toBe('RUNNING');
  const unknown = await postCallback(stack, successBody(stack, randomUUID(), j.key, null), { attempt: 1 });
  expect(unknown.statusCode).toBe(404);
  for (const x of [j, other]) {
    expect((await postCallback(stack, successBody(stack, x.jobId, x.key, x.sha256), { attempt: 1 })).statusCode).toBe(202);
    await waitForJob(stack, x.u.auth, x.jobId);
  }
});

test('PO-6 a checksum that does not match the object ends the job FAILED C16; a failure callback ends it with its code', async () => {
  const j = await waitingJob();
  expect((await postCallback(stack, successBody(stack, j.jobId, j.key, 'c'.repeat(64)), { attempt: 1 })).statusCode).toBe(202);
  expect(await waitForJob(stack, j.u.auth, j.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'C16' });

  const f = await waitingJob();
  const failed = JSON.stringify({ job_id: f.jobId, status: 'FAILED', error_code: 'PORTAL_MARKUP_UNEXPECTED', error_message: 'no grades table' });
  expect((await postCallback(stack, failed, { attempt: 1 })).statusCode).toBe(202);
  expect(await waitForJob(stack, f.u.auth, f.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'PORTAL_MARKUP_UNEXPECTED', errorMessage: 'no grades table' });
});
