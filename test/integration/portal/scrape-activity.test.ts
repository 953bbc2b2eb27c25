/**
 * PO-5/PO-6 the scrape activity end to end: the portal emulator, the real S3-compatible server
 * (moto, from globalSetup) and a small local HTTP callback receiver that verifies signatures with
 * the backend's own module. Runs in Temporal's MockActivityEnvironment (real activity context:
 * attempt number, heartbeats, cancellation).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createPortalScrapeActivities, type ScrapeCallbackBody } from '../../../src/activities/portal/scrape';
import { loadConfig } from '../../../src/families';
import { verify } from '../../../src/crypto/callback-signature';
import { parseScrapeResult } from '../../../src/domain/portal/result';
import { getFreePort } from '../../../src/dev/temporal-server';
import { ObjectNotFoundError } from '../../../src/storage/object-store';
import { portalResultKey, type ScrapePortalInput, type ScrapePortalOutput } from '../../../src/domain/portal/contracts';
import { pollUntil } from '../../support/poll';
import { startPortalEmulator, type PortalEmulator } from '../../support/portal-emulator';
import { expectedScrape, SEEDED } from '../../support/portal-seed';
import { testObjectStore, testObjectStoreEnv } from '../../support/object-store';

const SECRETS = ['scrape-test-secret-0123456789abcdef0123', 'scrape-test-old-secret-0123456789abcdef'];

interface Received {
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  body: ScrapeCallbackBody;
  verified: ReturnType<typeof verify>;
}

/** A callback receiver: verifies like the backend, answers `answers.shift()` (default 202). */
async function startReceiver(): Promise<{ url: string; received: Received[]; answers: number[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const answers: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({
        headers: req.headers,
        raw,
        body: JSON.parse(raw.toString('utf8')) as ScrapeCallbackBody,
        verified: verify(SECRETS.slice(1).concat(SECRETS[0]!), req.headers, raw, Math.floor(Date.now() / 1000), 300),
      });
      const status = answers.shift() ?? 202;
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 503 ? { 'retry-after': '0' } : {}) });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/internal/scrape-results`,
    received,
    answers,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('scrapePortal activity (emulator + moto + callback receiver)', () => {
  let portal: PortalEmulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const store = testObjectStore();
  let config: ReturnType<typeof loadConfig>;

  beforeAll(async () => {
    [portal, receiver] = await Promise.all([startPortalEmulator(), startReceiver()]);
    config = loadConfig({
      NODE_ENV: 'test',
      ...testObjectStoreEnv(),
      PORTAL_SUWON_BASE_URL: portal.url,
      PORTAL_CALLBACK_SECRETS: SECRETS.join(','),
      PORTAL_REQUEST_TIMEOUT_MS: '5000',
    });
  });
  afterAll(async () => {
    store.close();
    await Promise.all([portal.close(), receiver.close()]);
  });
  afterEach(() => {
    portal.clearFaults();
    receiver.answers.length = 0;
  });

  const activities = () => createPortalScrapeActivities({ config, store, outageBackoff: { initialMs: 50, maxMs: 200 } });
  const input = (student: { studentId: string; password: string }, over: Partial<ScrapePortalInput> = {}): ScrapePortalInput => ({
    jobId: randomUUID(),
    userId: randomUUID(),
    portalType: 'suwon',
    studentId: student.studentId,
    password: student.password,
    callbackUrl: receiver.url,
    ...over,
  });
  const env = (attempt = 1, startToCloseTimeoutMs = 60_000) =>
    new MockActivityEnvironment({ attempt, startToCloseTimeoutMs, currentAttemptScheduledTimestampMs: Date.now() }, { logger: new DefaultLogger('ERROR') });
  const callbacksFor = (jobId: string) => receiver.received.filter((r) => r.body.job_id === jobId);
  const failureOf = async (p: Promise<unknown>): Promise<ApplicationFailure> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  };

  it('stores the snake_case result under the job and attempt, then posts a signed SUCCEEDED callback', async () => {
    const student = SEEDED.retakeAndCorrection;
    const inp = input(student);
    const e = env(1);
    const heartbeats: unknown[] = [];
    e.on('heartbeat', (d: unknown) => heartbeats.push(d));
    const out = (await e.run(activities().scrapePortal, inp)) as ScrapePortalOutput;

    const key = `${config.objectStore.prefix}${inp.jobId}/1.json`;
    expect(out).toEqual({ resultKey: key, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), attempt: 1 });
    const stored = await store.get(key);
    expect(stored.sha256).toBe(out.sha256);
    const json = JSON.parse(stored.bytes.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['schema_version', 'scraped_at', 'academic_record', 'designated_courses']));
    const parsed = parseScrapeResult(json);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const { scrapedAt, ...rest } = parsed.result;
    expect(rest).toEqual(expectedScrape(student));

    const [cb, ...more] = callbacksFor(inp.jobId);
    expect(more).toHaveLength(0);
    expect(cb!.verified).toEqual({ ok: true, timestamp: expect.any(Number), secretIndex: 1 }); // signed with the FIRST secret
    expect(cb!.headers['x-callback-attempt']).toBe('1');
    expect(cb!.headers['x-request-id']).toEqual(expect.any(String));
    expect(cb!.body).toEqual({
      job_id: inp.jobId,
      status: 'SUCCEEDED',
      result_s3_bucket: store.bucket,
      result_s3_key: key,
      result_sha256: out.sha256,
      scraped_at: scrapedAt,
    });
    expect(heartbeats.length).toBeGreaterThan(student.semesters.length);
    // the password is nowhere in what left the activity
    expect(stored.bytes.toString('utf8')).not.toContain(student.password);
    expect(cb!.raw.toString('utf8')).not.toContain(student.password);
  });

  it('a later attempt writes its own key and says its attempt in the callback', async () => {
    const inp = input(SEEDED.freshman);
    const out = (await env(3).run(activities().scrapePortal, inp)) as ScrapePortalOutput;
    expect(out.resultKey).toBe(`${config.objectStore.prefix}${inp.jobId}/3.json`);
    expect(callbacksFor(inp.jobId)[0]!.headers['x-callback-attempt']).toBe('3');
    await expect(store.get(`${config.objectStore.prefix}${inp.jobId}/1.json`)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('wrong credentials: non-retryable PORTAL_CREDENTIALS_INVALID, a signed FAILED callback, no object', async () => {
    const inp = input({ studentId: SEEDED.freshman.studentId, password: 'not-the-password' });
    const f = await failureOf(env(1).run(activities().scrapePortal, inp));
    expect(f.type).toBe('PORTAL_CREDENTIALS_INVALID');
    expect(f.nonRetryable).toBe(true);
    expect(f.details).toEqual([{ code: 'PORTAL_CREDENTIALS_INVALID' }]);
    const [cb] = callbacksFor(inp.jobId);
    expect(cb!.verified.ok).toBe(true);
    expect(cb!.body).toMatchObject({ job_id: inp.jobId, status: 'FAILED', error_code: 'PORTAL_CREDENTIALS_INVALID', error_message: expect.any(String) });
    expect(cb!.raw.toString()).not.toContain('not-the-password');
    await expect(store.get(`${config.objectStore.prefix}${inp.jobId}/1.json`)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('a maintenance window shorter than the attempt is waited out inside it: the scrape completes', async () => {
    const student = SEEDED.designatedAbsent;
    portal.setFaults({ maintenance: true });
    const before = portal.stats().maintenanceAnswers;
    const run = env(1).run(activities().scrapePortal, input(student));
    await pollUntil(async () => portal.stats().maintenanceAnswers, (n) => n >= before + 2, { describe: 'two maintenance answers' });
    portal.clearFaults();
    await expect(run).resolves.toMatchObject({ attempt: 1 });
  });

  it('an outage longer than the attempt ends it as retryable PORTAL_UNAVAILABLE, with no callback', async () => {
    portal.setFaults({ maintenance: true });
    const inp = input(SEEDED.freshman);
    const f = await failureOf(env(1, 3_000).run(activities().scrapePortal, inp));
    expect(f.type).toBe('PORTAL_UNAVAILABLE');
    expect(f.nonRetryable).toBe(false);
    expect(f.details).toEqual([{ code: 'PORTAL_UNAVAILABLE', status: 200 }]);
    expect(callbacksFor(inp.jobId)).toHaveLength(0);
  });

  it('a session that keeps expiring is retryable PORTAL_SESSION_EXPIRED, nothing stored', async () => {
    const student = SEEDED.retakeAndCorrection;
    portal.setFaults({ sessionMaxRequests: 2 }, student.studentId);
    const inp = input(student);
    const f = await failureOf(env(1).run(activities().scrapePortal, inp));
    expect(f.type).toBe('PORTAL_SESSION_EXPIRED');
    expect(f.nonRetryable).toBe(false);
    expect(callbacksFor(inp.jobId)).toHaveLength(0);
    await expect(store.get(`${config.objectStore.prefix}${inp.jobId}/1.json`)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('a 503 from the callback endpoint is retried inside the attempt; a 409 is non-retryable CALLBACK_REJECTED', async () => {
    receiver.answers.push(503, 200);
    const a = input(SEEDED.freshman);
    await expect(env(1).run(activities().scrapePortal, a)).resolves.toMatchObject({ attempt: 1 });
    expect(callbacksFor(a.jobId)).toHaveLength(2);
    expect(callbacksFor(a.jobId).map((c) => c.raw.toString()).every((r, _i, all) => r === all[0])).toBe(true);

    receiver.answers.push(409);
    const b = input(SEEDED.freshman);
    const f = await failureOf(env(1).run(activities().scrapePortal, b));
    expect(f.type).toBe('CALLBACK_REJECTED');
    expect(f.nonRetryable).toBe(true);
    expect(f.details).toEqual([{ code: 'SCRAPE_FAILED', status: 409 }]);
  });

  it('an unreachable callback endpoint outlasting the attempt is retryable CALLBACK_UNAVAILABLE', async () => {
    const port = await getFreePort();
    const f = await failureOf(env(1, 4_000).run(activities().scrapePortal, input(SEEDED.freshman, { callbackUrl: `http://127.0.0.1:${port}/cb` })));
    expect(f.type).toBe('CALLBACK_UNAVAILABLE');
    expect(f.nonRetryable).toBe(false);
  });

  it('an unknown portal type is non-retryable PORTAL_TYPE_UNKNOWN', async () => {
    const f = await failureOf(env(1).run(activities().scrapePortal, input(SEEDED.freshman, { portalType: 'yonsei' })));
    expect(f.type).toBe('PORTAL_TYPE_UNKNOWN');
    expect(f.nonRetryable).toBe(true);
  });

  it('cancellation stops the scrape: CancelledFailure, nothing stored, no callback', async () => {
    portal.setFaults({ slowMs: 3_000, slowPaths: ['/student/record'] });
    const e = env(1);
    const scrape = input(SEEDED.freshman);
    const run = e.run(activities().scrapePortal, scrape);
    await pollUntil(async () => portal.stats().pages, (n) => n > 0, { describe: 'the scrape to reach a data page' });
    e.cancel();
    await expect(run).rejects.toBeInstanceOf(CancelledFailure);
    expect(callbacksFor(scrape.jobId)).toEqual([]);
    await expect(store.get(portalResultKey(config.objectStore.prefix, scrape.jobId, 1))).rejects.toBeInstanceOf(ObjectNotFoundError);
  });
});
