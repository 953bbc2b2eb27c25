/**
 * PO-6/PO-8/PO-10 the `applyScrapeResult` activity against the real S3-compatible store (moto,
 * started by globalSetup) and the real PostgreSQL: the snake_case object is read, camelized,
 * validated and applied with the portal link's status; a missing object, a SHA-256 mismatch or a
 * key outside the job's scope is C16, an invalid document C17 (so is a scraped_at ahead of the server
 * clock), a database rejection C18 — each non-retryable and with nothing written; a store outage is
 * retryable. A result older than the student's data is ignored and its job says so.
 * `applyScrapeResultAndSucceed` also SUCCEEDS the job in the apply's transaction (its summary as
 * the tables read back), answers the state of a job no longer post-processing without applying, and
 * changes nothing on a retry after its commit.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import { ApplicationFailure } from '@temporalio/common';
import { createPortalPostProcessActivities } from '../../../src/activities/portal/post-process';
import { applyScrapeResult } from '../../../src/services/portal/post-process';
import { parseScrapeResult } from '../../../src/domain/portal/result';
import { createUserWithToken } from '../../../src/auth/tokens';
import { createPrisma } from '../../../src/db/client';
import { snakeizeKeys } from '../../../src/domain/portal/result';
import { createS3ObjectStore, type S3ObjectStore } from '../../../src/storage/s3';
import { portalResultKey, type ApplyScrapeResultInput, type PortalPostProcessActivities } from '../../../src/domain/portal/contracts';
import { testObjectStore, testObjectStoreConfig } from '../../support/object-store';
import { createTestDatabase } from '../../support/postgres';
import { course, scrapeResult } from '../../support/portal-results';

let db: PrismaClient;
let drop: () => Promise<void>;
let store: S3ObjectStore;
let acts: PortalPostProcessActivities;
const prefix = 'portal-results/';
const TOLERANCE_SECONDS = 300;

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 5 });
  store = testObjectStore({ OBJECT_STORE_PREFIX: prefix });
  await store.ensureBucket();
  acts = createPortalPostProcessActivities({ db, store, prefix, toleranceSeconds: TOLERANCE_SECONDS });
});
afterAll(async () => {
  store?.close();
  await db?.$disconnect();
  await drop?.();
});

/** A job row (portal_links.last_job_id refers to it) and the activity input for its result; the user's earlier job is finished first (one active job per user). */
async function newJob(userId: string, kind: 'LINK' | 'REFRESH' = 'LINK'): Promise<ApplyScrapeResultInput> {
  await db.portalLinkJob.updateMany({ where: { userId, status: { in: ['QUEUED', 'RUNNING', 'POST_PROCESSING'] } }, data: { status: 'FAILED', errorCode: 'C16' } });
  const job = await db.portalLinkJob.create({
    data: { userId, portalType: 'suwon', studentId: '20221234', kind, status: 'POST_PROCESSING', workflowId: `portal-link:${userId}:${randomUUID()}` },
  });
  return { jobId: job.id, userId, portalType: 'suwon', resultKey: portalResultKey(prefix, job.id, 1), sha256: null, jobCreatedAt: job.createdAt.toISOString() };
}

/** Writes `doc` as the scraper does (snake_case JSON) and returns the input with its SHA-256. */
async function put(input: ApplyScrapeResultInput, doc: unknown, raw?: Buffer): Promise<ApplyScrapeResultInput> {
  const bytes = raw ?? Buffer.from(JSON.stringify(snakeizeKeys(doc)));
  const { sha256 } = await store.put(input.resultKey, bytes, 'application/json');
  return { ...input, sha256 };
}

const later = (input: ApplyScrapeResultInput, ms = 1000) => new Date(Date.parse(input.jobCreatedAt) + ms).toISOString();
const newUser = async () => (await createUserWithToken(db, `po-activity-${randomUUID().slice(0, 8)}`)).userId;

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

async function expectNothingWritten(userId: string) {
  expect(await db.student.findUnique({ where: { userId_portalType: { userId, portalType: 'suwon' } } })).toBeNull();
  expect(await db.portalLink.findUnique({ where: { userId_portalType: { userId, portalType: 'suwon' } } })).toBeNull();
}

test('a LINK result (snake_case on the wire) is applied and links the portal; a REFRESH updates the link', async () => {
  const userId = await newUser();
  const link = await newJob(userId);
  const raw = JSON.stringify(snakeizeKeys(scrapeResult('20221234', later(link))));
  expect(raw).toContain('"academic_record"'); // really snake_case
  const out = await acts.applyScrapeResult(await put(link, scrapeResult('20221234', later(link))));
  expect(out).toMatchObject({ applied: true, summary: { studentId: '20221234', creditsEarned: 7, designatedCourses: 2 } });
  const l1 = await db.portalLink.findUniqueOrThrow({ where: { userId_portalType: { userId, portalType: 'suwon' } } });
  expect(l1).toMatchObject({ status: 'LINKED', studentId: '20221234', lastJobId: link.jobId, lastRefreshedAt: null });

  await db.portalLink.update({ where: { id: l1.id }, data: { status: 'LOGIN_REQUIRED' } });
  const refresh = await newJob(userId, 'REFRESH');
  const doc = scrapeResult('20221234', later(refresh), { semesters: [{ year: 2022, term: '1', courses: [course('CS101')] }] });
  expect(await acts.applyScrapeResult(await put(refresh, doc))).toMatchObject({ applied: true, summary: { creditsEarned: 3, courses: 1 } });
  expect(await db.portalLink.findUniqueOrThrow({ where: { id: l1.id } })).toMatchObject({ status: 'LINKED', lastJobId: refresh.jobId, linkedAt: l1.linkedAt, lastRefreshedAt: expect.any(Date) });
});

test('C16: a missing object, a SHA-256 mismatch and a key outside the job scope are non-retryable, nothing written', async () => {
  const userId = await newUser();
  const job = await newJob(userId);
  const missing = await failureOf(acts.applyScrapeResult(job));
  expect(missing).toMatchObject({ type: 'PORTAL_RESULT_UNREADABLE', nonRetryable: true, details: [{ code: 'C16' }] });

  const stored = await put(job, scrapeResult('20221234', later(job)));
  const wrong = createHash('sha256').update('something else').digest('hex');
  const mismatch = await failureOf(acts.applyScrapeResult({ ...stored, sha256: wrong }));
  expect(mismatch).toMatchObject({ type: 'PORTAL_RESULT_UNREADABLE', nonRetryable: true, details: [{ code: 'C16' }] });
  expect(mismatch.message).toContain('SHA-256');

  const other = await newJob(userId);
  const outside = await failureOf(acts.applyScrapeResult({ ...other, resultKey: stored.resultKey }));
  expect(outside).toMatchObject({ type: 'PORTAL_RESULT_UNREADABLE', details: [{ code: 'C16' }] });
  await expectNothingWritten(userId);

  // The same object with the right (or no) checksum applies.
  expect(await acts.applyScrapeResult({ ...stored, sha256: stored.sha256!.toUpperCase() })).toMatchObject({ applied: true });
});

test('C17: a document that is not JSON, breaks the schema or is of another portal is non-retryable, nothing written', async () => {
  const userId = await newUser();
  const notJson = await put(await newJob(userId), null, Buffer.from('<html>maintenance</html>'));
  expect(await failureOf(acts.applyScrapeResult(notJson))).toMatchObject({ type: 'PORTAL_RESULT_INVALID', nonRetryable: true, details: [{ code: 'C17' }] });

  const j2 = await newJob(userId);
  const bad = scrapeResult('20221234', later(j2), { academicRecord: { creditsAttempted: 12, creditsEarned: 9, gpa: 9.9 } });
  const schema = await failureOf(acts.applyScrapeResult(await put(j2, bad)));
  expect(schema).toMatchObject({ type: 'PORTAL_RESULT_INVALID', details: [{ code: 'C17', issues: [{ path: 'academicRecord.gpa' }] }] });

  const j3 = await newJob(userId);
  const other = await failureOf(acts.applyScrapeResult(await put(j3, scrapeResult('20221234', later(j3), { portalType: 'ajou' }))));
  expect(other).toMatchObject({ type: 'PORTAL_RESULT_INVALID', details: [{ code: 'C17' }] });
  await expectNothingWritten(userId);
});

test('C18: a result the database rejects is non-retryable with no partial write (no student, no link, no reference rows)', async () => {
  const userId = await newUser();
  const job = await newJob(userId);
  const code = `Z${randomUUID().slice(0, 6)}`;
  const doc = scrapeResult('20221234', later(job), { semesters: [{ year: 2023, term: '1', courses: [course(code, { professor: 'Nul \u0000 Professor' })] }] });
  const f = await failureOf(acts.applyScrapeResult(await put(job, doc)));
  expect(f).toMatchObject({ type: 'PORTAL_RESULT_APPLY_FAILED', nonRetryable: true, details: [{ code: 'C18' }] });
  await expectNothingWritten(userId);
  expect(await db.course.count({ where: { code } })).toBe(0);
});

test('an unreachable object store is a retryable failure (C16 only once retries are used up)', async () => {
  const userId = await newUser();
  const job = await newJob(userId);
  const down = createS3ObjectStore({ ...testObjectStoreConfig({ OBJECT_STORE_PREFIX: prefix }), endpoint: 'http://127.0.0.1:9' }, { maxAttempts: 1, connectionTimeoutMs: 500 });
  try {
    const f = await failureOf(createPortalPostProcessActivities({ db, store: down, prefix, toleranceSeconds: TOLERANCE_SECONDS }).applyScrapeResult(job));
    expect(f).toMatchObject({ type: 'PORTAL_RESULT_STORE_UNAVAILABLE', nonRetryable: false, details: [{ code: 'C16' }] });
  } finally {
    down.close();
  }
  await expectNothingWritten(userId);
});

describe('time from outside', () => {
  const studentOf = (userId: string) => db.student.findUniqueOrThrow({ where: { userId_portalType: { userId, portalType: 'suwon' } } });

  test('a scraped_at ahead of the server clock beyond the tolerance is non-retryable C17, nothing written; within the tolerance it applies', async () => {
    const userId = await newUser();
    const year2099 = await newJob(userId);
    const f = await failureOf(acts.applyScrapeResult(await put(year2099, scrapeResult('20221234', '2099-01-01T00:00:00.000Z'))));
    expect(f).toMatchObject({ type: 'PORTAL_RESULT_SCRAPED_IN_FUTURE', nonRetryable: true, details: [{ code: 'C17', issues: [{ path: 'scraped_at' }] }] });
    expect(f.message).toContain('ahead of the server clock');
    const justBeyond = await newJob(userId);
    const beyond = new Date(Date.now() + (TOLERANCE_SECONDS + 120) * 1000).toISOString();
    expect(await failureOf(acts.applyScrapeResult(await put(justBeyond, scrapeResult('20221234', beyond))))).toMatchObject({ type: 'PORTAL_RESULT_SCRAPED_IN_FUTURE' });
    await expectNothingWritten(userId);

    const skewed = await newJob(userId);
    const within = new Date(Date.now() + 10_000).toISOString();
    expect(await acts.applyScrapeResult(await put(skewed, scrapeResult('20221234', within)))).toMatchObject({ applied: true });
  });

  test('a data_as_of from the future, stored before the check existed, no longer makes a real REFRESH look older', async () => {
    const userId = await newUser();
    const poisoned = await newJob(userId);
    const parsed = parseScrapeResult(scrapeResult('20221234', '2099-01-01T00:00:00.000Z'));
    if (!parsed.ok) throw new Error('the test result does not parse');
    await applyScrapeResult(db, poisoned, parsed.result); // without a clock: a data_as_of in the future is stored
    expect((await studentOf(userId)).dataAsOf.toISOString()).toBe('2099-01-01T00:00:00.000Z');

    const refresh = await newJob(userId, 'REFRESH');
    const out = await acts.applyScrapeResult(await put(refresh, scrapeResult('20221234', later(refresh))));
    expect(out).toMatchObject({ applied: true, ignoredReason: null });
    expect((await studentOf(userId)).dataAsOf.toISOString()).toBe(later(refresh));
    expect((await db.portalLinkJob.findUniqueOrThrow({ where: { id: refresh.jobId } })).resultCode).toBeNull();
  });

  test('a result older than the student data is ignored, and its job records STALE_RESULT_IGNORED', async () => {
    const userId = await newUser();
    const link = await newJob(userId);
    await acts.applyScrapeResult(await put(link, scrapeResult('20221234', later(link))));
    const before = await studentOf(userId);
    const refresh = await newJob(userId, 'REFRESH');
    const older = new Date(Date.parse(refresh.jobCreatedAt) - 60_000).toISOString();
    const out = await acts.applyScrapeResult(await put(refresh, scrapeResult('20221234', older)));
    expect(out).toMatchObject({ applied: false, ignoredReason: 'older-than-job' });
    expect(await studentOf(userId)).toEqual(before);
    expect(await db.portalLinkJob.findUniqueOrThrow({ where: { id: refresh.jobId } })).toMatchObject({ status: 'POST_PROCESSING', resultCode: 'STALE_RESULT_IGNORED' });
    expect((await db.portalLinkJob.findUniqueOrThrow({ where: { id: link.jobId } })).resultCode).toBeNull();
  });
});

describe('applyScrapeResultAndSucceed: the apply and the SUCCEEDED move in one transaction', () => {
  const jobOf = (jobId: string) => db.portalLinkJob.findUniqueOrThrow({ where: { id: jobId } });

  test('applies, SUCCEEDS with the summary as the stored data reads back; a retry after the commit changes nothing', async () => {
    const userId = await newUser();
    const job = await newJob(userId);
    const doc = scrapeResult('20221234', later(job));
    const link = await put(job, doc);
    expect(await acts.applyScrapeResultAndSucceed(link)).toEqual({ moved: true, status: 'SUCCEEDED', errorCode: null });
    const done = await jobOf(link.jobId);
    expect(done).toMatchObject({ status: 'SUCCEEDED', resultCode: null, finishedAt: expect.any(Date) });
    // The already-applied path reads the summary back from the tables: the same as the one stored.
    const readBack = await applyScrapeResult(db, link, parseOrThrow(doc));
    expect(done.summary).toEqual(readBack.summary);
    expect(readBack.summary).toMatchObject({ creditsEarned: 7, semesters: 3, courses: 5, designatedCourses: 2 });

    expect(await acts.applyScrapeResultAndSucceed(link)).toEqual({ moved: false, status: 'SUCCEEDED', errorCode: null });
    expect(await jobOf(link.jobId)).toEqual(done);

    // A REFRESH without a designated list keeps the stored one: counted, not replaced.
    const refresh = await newJob(userId, 'REFRESH');
    const kept = scrapeResult('20221234', later(refresh), { designatedCourses: null });
    expect(await acts.applyScrapeResultAndSucceed(await put(refresh, kept))).toMatchObject({ moved: true, status: 'SUCCEEDED' });
    expect((await jobOf(refresh.jobId)).summary).toMatchObject({ designatedCourses: 2 });
  });

  test('a job no longer POST_PROCESSING gets nothing applied and answers its state', async () => {
    const userId = await newUser();
    const job = await put(await newJob(userId), scrapeResult('20221234', new Date().toISOString()));
    await db.portalLinkJob.update({ where: { id: job.jobId }, data: { status: 'FAILED', errorCode: 'CALLBACK_TIMEOUT' } });
    expect(await acts.applyScrapeResultAndSucceed(job)).toEqual({ moved: false, status: 'FAILED', errorCode: 'CALLBACK_TIMEOUT' });
    await expectNothingWritten(userId);
  });

  test('an ignored older result SUCCEEDS with STALE_RESULT_IGNORED; a failing one is its failure, the job untouched', async () => {
    const userId = await newUser();
    const link = await newJob(userId);
    await acts.applyScrapeResultAndSucceed(await put(link, scrapeResult('20221234', later(link))));
    const refresh = await newJob(userId, 'REFRESH');
    const older = new Date(Date.parse(refresh.jobCreatedAt) - 60_000).toISOString();
    expect(await acts.applyScrapeResultAndSucceed(await put(refresh, scrapeResult('20221234', older)))).toMatchObject({ moved: true, status: 'SUCCEEDED' });
    expect(await jobOf(refresh.jobId)).toMatchObject({ status: 'SUCCEEDED', resultCode: 'STALE_RESULT_IGNORED', summary: { dataAsOf: later(link) } });

    const other = await newJob(await newUser());
    expect(await failureOf(acts.applyScrapeResultAndSucceed(other))).toMatchObject({ type: 'PORTAL_RESULT_UNREADABLE', details: [{ code: 'C16' }] });
    expect(await jobOf(other.jobId)).toMatchObject({ status: 'POST_PROCESSING', summary: null });
  });
});

function parseOrThrow(doc: unknown) {
  const parsed = parseScrapeResult(doc);
  if (!parsed.ok) throw new Error('the test result does not parse');
  return parsed.result;
}
