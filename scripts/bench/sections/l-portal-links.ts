/**
 * (l) Portal links: POST /portal/link → SUCCEEDED via GET polls (the portal emulator, moto, the
 * real scraper and post-processing), p50/p95, against `noopWorkflow` start → result (half before,
 * half after); then signed scrape callbacks verified (and answered as duplicates, PO-7) per second
 * against GET /health.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../../src/auth/tokens';
import { signedCallbackHeaders } from '../../../src/crypto/callback-signature';
import { portalResultKey } from '../../../src/domain/portal/contracts';
import { SEED_STUDENTS } from '../../../test/support/portal-seed';
import { elapsed, say } from '../lifecycle';
import { compareWithHealth } from '../load';
import { ms, pcts, pollStatus, pool, rate, ratio } from '../measure';
import { POLL_MS, READ_CONNECTIONS } from '../options';
import type { BenchSection } from '../section';

/** Section (l); the stack starts the portal emulator, the object store and the portal worker for it. */
export const sectionL: BenchSection = {
  letter: 'l',
  needs: 'stack',
  portal: true,
  async run(ctx) {
    const { sizes, stack, runId, noop } = ctx;
    const { apiUrl, db, config } = stack;
    say();
    const jobsN = Math.max(8, sizes.latencyScraps / 2);
    say(`## (l) portal links: POST /portal/link → SUCCEEDED (GET poll every ${POLL_MS} ms), ${jobsN} jobs over ${Object.keys(SEED_STUDENTS).length} students, concurrency ${sizes.latencyConcurrency}; signed callbacks vs GET /health ${elapsed()}`);
    const students = Object.values(SEED_STUDENTS);
    // One active job per user and portal (PO-1): each job has its own user.
    const users = await Promise.all(Array.from({ length: jobsN }, (_, i) => createUserWithToken(db, `bench-po-${runId}-${i}`)));
    await noop.latencies(8, sizes.latencyConcurrency); // warm-up, not counted
    const baseLat = await noop.latencies(jobsN / 2, sizes.latencyConcurrency);
    const linkLat: number[] = [];
    const jobIds: string[] = [];
    let failedJobs = 0;
    await pool(jobsN, sizes.latencyConcurrency, async (i) => {
      const student = students[i % students.length]!;
      const auth = { authorization: `Bearer ${users[i]!.token}`, 'content-type': 'application/json' };
      const t = performance.now();
      const res = await fetch(`${apiUrl}/portal/link`, { method: 'POST', headers: { ...auth, 'idempotency-key': randomUUID() }, body: JSON.stringify({ portalType: 'suwon', studentId: student.studentId, password: student.password }) });
      const json = (await res.json()) as { jobId?: string };
      if (res.status !== 202 || !json.jobId) throw new Error(`POST /portal/link → ${res.status} ${JSON.stringify(json)}`);
      jobIds.push(json.jobId);
      const status = await pollStatus(`${apiUrl}/portal/link/jobs/${json.jobId}`, auth, ['SUCCEEDED', 'FAILED'], `(l) portal link job ${json.jobId}`);
      if (status === 'FAILED') failedJobs++;
      else linkLat.push(performance.now() - t);
    });
    baseLat.push(...(await noop.latencies(jobsN / 2, sizes.latencyConcurrency)));
    const linkP = pcts(linkLat);
    const baseP = pcts(baseLat);
    say(`POST /portal/link → SUCCEEDED: p50 ${ms(linkP.p50)}, p95 ${ms(linkP.p95)} (n=${linkP.n}${failedJobs ? `, ${failedJobs} FAILED` : ''})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(baseP.p50)}, p95 ${ms(baseP.p95)} (n=${baseP.n}, half before and half after); ratio p50 ${ratio(linkP.p50 / baseP.p50)}, p95 ${ratio(linkP.p95 / baseP.p95)}`);
    const rows = [
      { measure: '(l) POST /portal/link → SUCCEEDED, p50', subject: ms(linkP.p50), baseline: `${ms(baseP.p50)} noopWorkflow start → result`, ratio: ratio(linkP.p50 / baseP.p50) },
      { measure: '(l) POST /portal/link → SUCCEEDED, p95', subject: ms(linkP.p95), baseline: `${ms(baseP.p95)} noopWorkflow start → result`, ratio: ratio(linkP.p95 / baseP.p95) },
    ];

    // A finished job's attempt-1 callback, signed once and posted again and again: each request is
    // verified (HMAC over the raw bytes) and answered as a duplicate, applying nothing.
    const jobId = jobIds[0]!;
    const cbBody = JSON.stringify({ job_id: jobId, status: 'SUCCEEDED', result_s3_bucket: config.objectStore.bucket, result_s3_key: portalResultKey(config.objectStore.prefix, jobId, 1), result_sha256: null, scraped_at: new Date().toISOString() });
    const cbHeaders = signedCallbackHeaders(config.portal.callbackSecrets[0]!, cbBody, { attempt: 1 });
    const half = Math.max(1, Math.round(sizes.readSeconds / 2));
    const cbSpec = { url: apiUrl, method: 'POST' as const, paths: ['/internal/scrape-results'], headers: cbHeaders, connections: READ_CONNECTIONS, body: cbBody };
    const healthSpec = { url: apiUrl, method: 'GET' as const, paths: ['/health'], headers: {}, connections: READ_CONNECTIONS };
    const { subjectRate: cbRate, healthRate } = await compareWithHealth(cbSpec, healthSpec, half, 'callbacks');
    const rowsOfJob = await db.portalScrapeCallback.count({ where: { jobId } });
    say(`signed callbacks verified: ${rate(cbRate)}; GET /health: ${rate(healthRate)}; ratio ${ratio(cbRate / healthRate)}; callbacks recorded for the job: ${rowsOfJob}`);
    rows.push({ measure: `(l) signed scrape callbacks verified req/s (duplicates), ${READ_CONNECTIONS} connections`, subject: rate(cbRate), baseline: `${rate(healthRate)} GET /health`, ratio: ratio(cbRate / healthRate) });
    return rows;
  },
};
