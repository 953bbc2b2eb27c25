/** PO-5 the `suwon` adapter against the portal emulator: every seeded student, login failures, expiry, outages. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../src/families';
import { parseScrapeResult, snakeizeKeys } from '../../../src/domain/portal/result';
import { getFreePort } from '../../../src/dev/temporal-server';
import { createSuwonAdapter, DEFAULT_PAGE_CONCURRENCY } from '../../../src/services/portal/adapters/suwon/adapter';
import { isPortalType, PORTAL_TYPES, portalAdapterFor } from '../../../src/services/portal/adapters/registry';
import {
  PortalCredentialsInvalidError,
  PortalMarkupUnexpectedError,
  PortalSessionExpiredError,
  PortalUnavailableError,
} from '../../../src/services/portal/adapters/types';
import { startPortalEmulator, type PortalEmulator } from '../../support/portal-emulator';
import { expectedScrape, SEED_STUDENTS, SEEDED } from '../../support/portal-seed';

describe('suwon adapter against the portal emulator', () => {
  let portal: PortalEmulator;
  const adapter = () => createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 5_000 });
  const creds = (s: { studentId: string; password: string }) => ({ studentId: s.studentId, password: s.password });

  beforeAll(async () => {
    portal = await startPortalEmulator();
  });
  afterAll(async () => {
    await portal.close();
  });
  afterEach(() => portal.clearFaults());

  it.each(Object.values(SEED_STUDENTS).map((s) => [s.studentId, s] as const))('reads seeded student %s exactly as the portal holds it', async (_id, seed) => {
    const heartbeats: string[] = [];
    const result = await adapter().scrape(creds(seed), { heartbeat: (p) => heartbeats.push(p.page) });
    const { scrapedAt, ...rest } = result;
    expect(rest).toEqual(expectedScrape(seed));
    expect(Number.isNaN(Date.parse(scrapedAt))).toBe(false);
    expect(heartbeats).toEqual(expect.arrayContaining(['/login', '/student/profile', '/student/evaluations']));
    expect(heartbeats.filter((p) => p.startsWith('/student/semesters/'))).toHaveLength(seed.semesters.length);

    // the snake_case wire form survives JSON and the post-processing parser (PO-8)
    const parsed = parseScrapeResult(JSON.parse(JSON.stringify(snakeizeKeys(result))));
    expect(parsed.ok).toBe(true);
  });

  it('keeps the seed cases apart: duplicate designated courses in order, [] and absent', async () => {
    const a = await adapter().scrape(creds(SEEDED.retakeAndCorrection));
    expect(a.designatedCourses?.map((d) => d.courseCode)).toEqual(['CSE401', 'GEN203', 'CSE401']);
    const retaken = a.semesters.flatMap((s) => s.courses).filter((c) => c.courseCode === 'CSE201');
    expect(retaken.map((c) => [c.grade, c.retake])).toEqual([['F', false], ['B+', true]]);
    expect(a.semesters.flatMap((s) => s.courses).find((c) => c.courseCode === 'CSE302')).toMatchObject({ credits: 3, creditCorrection: 2 });

    const b = await adapter().scrape(creds(SEEDED.doubleMajorNoCertificate));
    expect(b.designatedCourses).toEqual([]);
    expect(b.profile.doubleMajor).toBe(SEEDED.doubleMajorNoCertificate.profile.doubleMajor);
    expect(b.profile.languageCertificates).toEqual([]);

    const c = await adapter().scrape(creds(SEEDED.designatedAbsent));
    expect('designatedCourses' in c).toBe(false);
    expect(c.courseEvaluations).toBeNull();
    expect(JSON.stringify(snakeizeKeys(c))).not.toContain('designated_courses');
  });

  it('a wrong password or an unknown student is PortalCredentialsInvalidError', async () => {
    const s = SEEDED.freshman;
    await expect(adapter().scrape({ studentId: s.studentId, password: 'wrong' })).rejects.toBeInstanceOf(PortalCredentialsInvalidError);
    await expect(adapter().scrape({ studentId: '99999999', password: s.password })).rejects.toBeInstanceOf(PortalCredentialsInvalidError);
    expect(portal.stats().failedLogins).toBeGreaterThanOrEqual(2);
  });

  it('a session that expires once mid-scrape is logged into again and the data is complete', async () => {
    const s = SEEDED.retakeAndCorrection;
    portal.setFaults({ sessionMaxRequests: 8 }, s.studentId);
    const before = portal.stats();
    const result = await adapter().scrape(creds(s));
    const after = portal.stats();
    // one fresh login, however many of the pages in flight saw the session end
    expect(after.logins - before.logins).toBe(2);
    expect(after.expiredAnswers - before.expiredAnswers).toBeGreaterThanOrEqual(1);
    expect(after.expiredAnswers - before.expiredAnswers).toBeLessThanOrEqual(DEFAULT_PAGE_CONCURRENCY);
    const { scrapedAt: _ignored, ...rest } = result;
    expect(rest).toEqual(expectedScrape(s));
  });

  it('a session that ends under several pages in flight is logged into once; a refused fresh login is one failure', async () => {
    const s = SEEDED.retakeAndCorrection;
    // The fresh login posts a wrong password (as if it had been changed meanwhile).
    const sent = { loginForms: 0, loginPosts: 0 };
    const changedPassword: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.endsWith('/login') && init?.method === 'POST') {
        if (++sent.loginPosts > 1) init = { ...init, body: String(init.body).replace(/userPw=[^&]*/, 'userPw=changed') };
      } else if (url.endsWith('/login')) sent.loginForms++;
      return fetch(input, init);
    };
    // The session ends after /main and two data pages: the other pages in flight answer the login form.
    portal.setFaults({ sessionMaxRequests: 3, slowMs: 200, slowPaths: ['/student/'] }, s.studentId);
    const before = portal.stats();
    const err = await createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 5_000, fetch: changedPassword }).scrape(creds(s)).catch((e: unknown) => e);
    const after = portal.stats();
    expect(err).toBeInstanceOf(PortalCredentialsInvalidError);
    expect(after.expiredAnswers - before.expiredAnswers).toBeGreaterThanOrEqual(2);
    expect(after.failedLogins - before.failedLogins).toBe(1);
    expect(sent).toEqual({ loginForms: 2, loginPosts: 2 });
  });

  it('reads the data pages together, at most pageConcurrency of one scrape and maxRequestsInFlight of the adapter\'s scrapes at once', async () => {
    const s = SEEDED.retakeAndCorrection;
    const strip = (r: { scrapedAt: string }) => ({ ...r, scrapedAt: undefined });
    portal.setFaults({ slowMs: 1_000, slowPaths: ['/student/'] });
    portal.resetPeak();
    const three = await createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 5_000, pageConcurrency: 3 }).scrape(creds(s));
    expect(strip(three)).toEqual({ ...expectedScrape(s), scrapedAt: undefined });
    expect(portal.stats().peakInFlight).toBe(3);

    portal.resetPeak();
    const shared = createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 5_000, pageConcurrency: 4, maxRequestsInFlight: 5 });
    const both = await Promise.all([shared.scrape(creds(SEEDED.freshman)), shared.scrape(creds(SEEDED.doubleMajorNoCertificate))]);
    expect(both.map((r) => r.profile.studentId)).toEqual([SEEDED.freshman.studentId, SEEDED.doubleMajorNoCertificate.studentId]);
    expect(portal.stats().peakInFlight).toBe(5);

    portal.clearFaults();
    portal.resetPeak();
    const one = await createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 5_000, pageConcurrency: 1 }).scrape(creds(s));
    expect(strip(one)).toEqual({ ...expectedScrape(s), scrapedAt: undefined });
    expect(portal.stats().peakInFlight).toBe(1);
  }, 60_000);

  it('the first failing page stops the others: a 503 is one outage, and no page is sent after it', async () => {
    const s = SEEDED.retakeAndCorrection;
    const sent: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (url.pathname.startsWith('/student/')) sent.push(url.pathname);
      return fetch(input, init);
    };
    // The 4th request (after /login, POST /login, /main) answers 503 at once; the other page in flight is held, then cut short.
    portal.setFaults({ failNth: { nth: 4 }, slowMs: 1_000, slowPaths: ['/student/'] });
    const err = (await createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 5_000, pageConcurrency: 2, fetch: counting })
      .scrape(creds(s))
      .catch((e: unknown) => e)) as PortalUnavailableError;
    expect(err).toBeInstanceOf(PortalUnavailableError);
    expect(err.details).toMatchObject({ status: 503 });
    expect(sent).toHaveLength(2);
  });

  it('a session that keeps expiring is PortalSessionExpiredError, never a student with zero courses', async () => {
    const s = SEEDED.retakeAndCorrection;
    portal.setFaults({ sessionMaxRequests: 3 }, s.studentId);
    await expect(adapter().scrape(creds(s))).rejects.toBeInstanceOf(PortalSessionExpiredError);
    portal.setFaults({ sessionTtlMs: 1, slowMs: 20, slowPaths: ['/student/'] }, s.studentId);
    await expect(adapter().scrape(creds(s))).rejects.toBeInstanceOf(PortalSessionExpiredError);
  });

  it('a 503 on the k-th request is PortalUnavailableError with the Retry-After; the next scrape succeeds', async () => {
    const s = SEEDED.freshman;
    portal.setFaults({ failNth: { nth: 4 } });
    const err = (await adapter().scrape(creds(s)).catch((e: unknown) => e)) as PortalUnavailableError;
    expect(err).toBeInstanceOf(PortalUnavailableError);
    expect(err.details).toMatchObject({ status: 503, retryAfterMs: 1000 });
    await expect(adapter().scrape(creds(s))).resolves.toMatchObject({ profile: { studentId: s.studentId } });
  });

  it('the maintenance page (200) is PortalUnavailableError, globally or for one student', async () => {
    portal.setFaults({ maintenance: true });
    const err = (await adapter().scrape(creds(SEEDED.freshman)).catch((e: unknown) => e)) as PortalUnavailableError;
    expect(err).toBeInstanceOf(PortalUnavailableError);
    expect(err.details.maintenance).toBe(true);
    portal.clearFaults();
    portal.setFaults({ maintenance: true }, SEEDED.freshman.studentId);
    await expect(adapter().scrape(creds(SEEDED.freshman))).rejects.toBeInstanceOf(PortalUnavailableError);
    await expect(adapter().scrape(creds(SEEDED.designatedAbsent))).resolves.toMatchObject({ profile: { studentId: SEEDED.designatedAbsent.studentId } });
  });

  it('a slow page within the request timeout is read; one slower than it is an outage', async () => {
    const s = SEEDED.designatedAbsent;
    portal.setFaults({ slowMs: 300, slowPaths: ['/student/semesters/'] });
    await expect(createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 5_000 }).scrape(creds(s))).resolves.toMatchObject({
      semesters: expect.any(Array),
    });
    portal.setFaults({ slowMs: 2_000, slowPaths: ['/student/record'] });
    await expect(createSuwonAdapter({ baseUrl: portal.url, requestTimeoutMs: 300 }).scrape(creds(s))).rejects.toBeInstanceOf(PortalUnavailableError);
  });

  it('an aborted scrape rejects with the abort reason, not a portal error', async () => {
    portal.setFaults({ slowMs: 2_000, slowPaths: ['/student/profile'] });
    const ac = new AbortController();
    const p = adapter().scrape(creds(SEEDED.freshman), { signal: ac.signal, heartbeat: (x) => x.page === '/login' && setImmediate(() => ac.abort(new Error('cancelled by test'))) });
    await expect(p).rejects.toThrow('cancelled by test');
  });

  it('an unreachable portal is PortalUnavailableError', async () => {
    const port = await getFreePort();
    await expect(createSuwonAdapter({ baseUrl: `http://127.0.0.1:${port}`, requestTimeoutMs: 2_000 }).scrape(creds(SEEDED.freshman))).rejects.toBeInstanceOf(
      PortalUnavailableError,
    );
  });

  it('pages of another shape are PortalMarkupUnexpectedError', async () => {
    // the profile of another student than the one logged in
    const s = portal.student(SEEDED.freshman.studentId)!;
    portal.setStudent({ ...s, profile: { ...s.profile, studentId: '20269999' } });
    try {
      await expect(adapter().scrape(creds(s))).rejects.toBeInstanceOf(PortalMarkupUnexpectedError);
    } finally {
      portal.setStudent(SEEDED.freshman);
    }
    // a "portal" without the login form
    const other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Hello</h1></body></html>');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      await expect(createSuwonAdapter({ baseUrl: url, requestTimeoutMs: 2_000 }).scrape(creds(s))).rejects.toBeInstanceOf(PortalMarkupUnexpectedError);
    } finally {
      other.closeAllConnections();
      await new Promise<void>((r) => other.close(() => r()));
    }
  });

  it('a record change on the portal shows up in the next scrape (the REFRESH case)', async () => {
    const s = portal.student(SEEDED.freshman.studentId)!;
    const changed = structuredClone(s);
    changed.semesters[1]!.courses[0]!.grade = 'A+';
    portal.setStudent(changed);
    try {
      const r = await adapter().scrape(creds(s));
      expect(r.semesters[1]!.courses[0]!.grade).toBe('A+');
    } finally {
      portal.setStudent(SEEDED.freshman);
    }
  });

  it('the admin API sets faults and students over HTTP', async () => {
    const put = (path: string, body: unknown) =>
      fetch(`${portal.url}/__admin${path}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await put('/faults', { maintenance: true })).status).toBe(200);
    await expect(adapter().scrape(creds(SEEDED.freshman))).rejects.toBeInstanceOf(PortalUnavailableError);
    expect((await fetch(`${portal.url}/__admin/faults`, { method: 'DELETE' })).status).toBe(200);
    const list = (await (await fetch(`${portal.url}/__admin/students`)).json()) as Array<{ studentId: string }>;
    expect(list.map((x) => x.studentId).sort()).toEqual(Object.keys(SEED_STUDENTS).sort());
    expect((await put(`/students/${SEEDED.freshman.studentId}`, { ...SEEDED.freshman, studentId: 'x' })).status).toBe(400);
  });
});

describe('portal registry', () => {
  it('knows suwon and nothing else', () => {
    const portal = loadConfig({ NODE_ENV: 'test' }).portal;
    expect(PORTAL_TYPES).toEqual(['suwon']);
    expect(isPortalType('suwon')).toBe(true);
    expect(isPortalType('yonsei')).toBe(false);
    expect(portalAdapterFor('suwon', portal)?.type).toBe('suwon');
    expect(portalAdapterFor('yonsei', portal)).toBeUndefined();
    expect(portalAdapterFor('__proto__', portal)).toBeUndefined();
  });
});
