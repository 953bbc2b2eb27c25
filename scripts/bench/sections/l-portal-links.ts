/**
 * (l) Portal links: POST /portal/link → SUCCEEDED via GET polls (the portal emulator, moto, the
 * real scraper and post-processing), p50/p95, against `noopWorkflow` start → result (half before,
 * half after); then signed scrape callbacks verified (and answered as duplicates, PO-7) per second
 * against GET /health.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { signedCallbackHeaders } from '../../../src/crypto/callback-signature';
import { portalResultKey } from '../../../src/domain/portal/contracts';
import { SEED_STUDENTS } from '../../../test/support/portal-seed';
import { elapsed, say } from '../lifecycle';
import { compareWithHealth } from '../load';
import { median, ms, pcts, pool, rate, ratio } from '../measure';
import { follow, portalFamily } from '../families';
import { POLL_MS, READ_CONNECTIONS } from '../options';
import { timelineReport, type PhaseSample } from '../phases';
import { portalAdapters } from '../../../src/services/portal/adapters/registry';
import { createS3ObjectStore } from '../../../src/storage/s3';
import { snakeizeKeys } from '../../../src/domain/portal/result';
import { applyScrapeResult } from '../../../src/services/portal/post-process';
import { readScrapeResult } from '../../../src/services/portal/scrape-result';
import type { BenchSection, StackContext } from '../section';

/** Section (l); the stack starts the portal emulator, the object store and the portal worker for it. */
export const sectionL: BenchSection = {
  letter: 'l',
  needs: 'stack',
  portal: true,
  async run(ctx) {
    const { sizes, stack, noop } = ctx;
    const { apiUrl, db, config } = stack;
    say();
    const jobsN = Math.max(8, sizes.latencyScraps / 2);
    say(`## (l) portal links: POST /portal/link → SUCCEEDED (GET poll every ${POLL_MS} ms), ${jobsN} jobs over ${Object.keys(SEED_STUDENTS).length} students, concurrency ${sizes.latencyConcurrency}; signed callbacks vs GET /health ${elapsed()}`);
    const family = await portalFamily(ctx, jobsN, 'l');
    await noop.latencies(8, sizes.latencyConcurrency); // warm-up, not counted
    const baseLat = await noop.latencies(jobsN / 2, sizes.latencyConcurrency);
    const linkLat: number[] = [];
    const jobIds: string[] = [];
    const clientTimes = new Map<string, { submittedAt: number; seenAt: number; i: number }>();
    let failedJobs = 0;
    await pool(jobsN, sizes.latencyConcurrency, async (i) => {
      const t = performance.now();
      const submittedAt = Date.now();
      const jobId = (await family.create(i, 'l'))[0]!;
      jobIds.push(jobId);
      const { status, seenAt } = await follow(family, jobId, 'short');
      if (status === 'FAILED') failedJobs++;
      else {
        linkLat.push(performance.now() - t);
        clientTimes.set(jobId, { submittedAt, seenAt, i });
      }
    });
    baseLat.push(...(await noop.latencies(jobsN / 2, sizes.latencyConcurrency)));
    const linkP = pcts(linkLat);
    const baseP = pcts(baseLat);
    say(`POST /portal/link → SUCCEEDED: p50 ${ms(linkP.p50)}, p95 ${ms(linkP.p95)} (n=${linkP.n}${failedJobs ? `, ${failedJobs} FAILED` : ''})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(baseP.p50)}, p95 ${ms(baseP.p95)} (n=${baseP.n}, half before and half after); ratio p50 ${ratio(linkP.p50 / baseP.p50)}, p95 ${ratio(linkP.p95 / baseP.p95)}`);
    for (const l of await portalPhases(ctx, clientTimes)) say(l);
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

/**
 * Where a link job's time goes: the timeline of the middle half of the jobs (history events, the
 * job row's and the first callback row's timestamps, the client's submit and seen moments), then
 * the scrape's own parts alone at concurrency 1 (login, data pages, object put) and the
 * post-processing alone (object read and apply transaction), which with the noop round trip bound
 * the latency from below.
 */
async function portalPhases(ctx: StackContext, clientTimes: Map<string, { submittedAt: number; seenAt: number; i: number }>): Promise<string[]> {
  const { stack, noop } = ctx;
  const { db, config, client } = stack;
  const ordered = [...clientTimes.entries()].sort((a, b) => a[1].i - b[1].i);
  const mid = ordered.slice(Math.floor(ordered.length / 4), Math.ceil((ordered.length * 3) / 4)).slice(0, 40);
  const jobRows = await db.portalLinkJob.findMany({
    where: { id: { in: mid.map(([id]) => id) } },
    select: { id: true, workflowId: true, createdAt: true, startedAt: true, postProcessingAt: true, finishedAt: true, callbacks: { select: { receivedAt: true, attempt: true } } },
  });
  const byId = new Map(jobRows.map((r) => [r.id, r]));
  const samples: PhaseSample[] = [];
  for (const [id, t] of mid) {
    const r = byId.get(id);
    if (!r) continue;
    const moments: Record<string, number> = { 'row created (QUEUED)': r.createdAt.getTime() };
    if (r.startedAt) moments['row RUNNING'] = r.startedAt.getTime();
    const cb = r.callbacks.find((c) => c.attempt === 1) ?? r.callbacks[0];
    if (cb) moments['callback row inserted'] = cb.receivedAt.getTime();
    if (r.postProcessingAt) moments['row POST_PROCESSING'] = r.postProcessingAt.getTime();
    if (r.finishedAt) moments['row SUCCEEDED'] = r.finishedAt.getTime();
    samples.push({ workflowId: r.workflowId, submittedAt: t.submittedAt, seenAt: t.seenAt, moments });
  }
  const lines = await timelineReport(client, 'portalLinkWorkflow', samples);

  // The scrape's parts alone, one at a time: what the emulator and the object store cost without contention.
  const adapter = portalAdapters(config.portal)['suwon'];
  const store = createS3ObjectStore(config.objectStore, { requestTimeoutMs: config.portal.requestTimeoutMs });
  const students = Object.values(SEED_STUDENTS);
  const login: number[] = [];
  const pages: number[] = [];
  const put: number[] = [];
  const post: number[] = [];
  const rounds = ctx.quick ? 4 : 12;
  try {
    for (let i = 0; i < rounds && adapter; i++) {
      const s = students[i % students.length]!;
      const t0 = performance.now();
      let loggedIn = Number.NaN;
      const result = await adapter.scrape(
        { studentId: s.studentId, password: s.password },
        { heartbeat: (p) => { if (p.pages === 2 && Number.isNaN(loggedIn)) loggedIn = performance.now(); } },
      );
      const t1 = performance.now();
      login.push(loggedIn - t0);
      pages.push(t1 - loggedIn);
      const bytes = Buffer.from(JSON.stringify(snakeizeKeys(result)), 'utf8');
      // A job id of its own (no job row: the apply is called without the job's and the link's writes) and a new user.
      const jobId = randomUUID();
      const key = portalResultKey(config.objectStore.prefix, jobId, 1);
      const t2 = performance.now();
      const { sha256 } = await store.put(key, bytes, 'application/json');
      put.push(performance.now() - t2);
      const t3 = performance.now();
      const read = await readScrapeResult(store, { key, sha256, jobId, portalType: 'suwon', prefix: config.objectStore.prefix });
      await applyScrapeResult(db, { jobId, userId: randomUUID(), portalType: 'suwon', jobCreatedAt: new Date(Date.now() - 60_000).toISOString() }, read);
      post.push(performance.now() - t3);
    }
  } finally {
    store.close();
  }
  const noopAlone = await noop.latencies(rounds, 1);
  lines.push(
    `scrape parts alone (concurrency 1, ${rounds} rounds, medians): login ${ms(median(login))}, data pages ${ms(median(pages))}, object put ${ms(median(put))}; ` +
      `post-processing alone (object read + apply transaction, a new student each) ${ms(median(post))}; noop start → result alone ${ms(median(noopAlone))}`,
  );
  return lines;
}
