/**
 * (g) How a client learns that a job completed: by short polling (a GET every POLL_MS) or by long
 * polling (`If-None-Match` + `Prefer: wait`). sizes.pollJobs scraps at concurrency 8, alternately
 * followed one way or the other (both jobs of a scrap the same way), so both run under the same
 * load at the same time: pollJobs jobs each. Per job: the GET requests from the 202 until the
 * terminal status is seen, and the delay from the job's completion (async_jobs.finished_at, set
 * by the worker in this process, same clock) to the moment the client sees it.
 */
import { performance } from 'node:perf_hooks';
import { assertWorkersAlive, elapsed, say, sleep } from '../lifecycle';
import { drain, fmt, ms, pcts, pool, ratio } from '../measure';
import { JOB_TIMEOUT_MS, LONG_POLL_WAIT_S, POLL_MS } from '../options';
import type { BenchSection } from '../section';

/** Section (g). */
export const sectionG: BenchSection = {
  letter: 'g',
  needs: 'stack',
  async run(ctx) {
    const { sizes, docs, runId, call } = ctx;
    const { apiUrl, db } = ctx.stack;
    say();
    say(`## (g) completion seen by polling every ${POLL_MS} ms vs long polling (Prefer: wait=${LONG_POLL_WAIT_S}), ${sizes.pollJobs} jobs each way ${elapsed()}`);
    await drain(db, '(g) start');
    type Way = 'short' | 'long';
    const seen: Record<Way, { jobId: string; seenAt: number; requests: number; status: string }[]> = { short: [], long: [] };
    const auth = { authorization: ctx.headers.authorization as string };
    const get = async (jobId: string, extra: Record<string, string> = {}) => {
      const res = await fetch(`${apiUrl}/async-jobs/${jobId}`, { headers: { ...auth, ...extra } });
      const text = await res.text();
      if (res.status !== 200 && res.status !== 304) throw new Error(`(g) GET /async-jobs/${jobId} → ${res.status} ${text}`);
      return { status: res.status, etag: res.headers.get('etag') ?? undefined, job: res.status === 200 ? (JSON.parse(text) as { status: string }) : undefined };
    };
    const terminal = (s: string | undefined) => s === 'COMPLETED' || s === 'FAILED';
    const follow = async (way: Way, jobId: string) => {
      const t = performance.now();
      let requests = 0;
      let etag: string | undefined;
      for (;;) {
        requests++;
        const r = way === 'long' && etag ? await get(jobId, { 'if-none-match': etag, prefer: `wait=${LONG_POLL_WAIT_S}` }) : await get(jobId);
        if (r.job && terminal(r.job.status)) {
          seen[way].push({ jobId, seenAt: Date.now(), requests, status: r.job.status });
          return;
        }
        if (r.etag && r.status === 200) etag = r.etag;
        assertWorkersAlive();
        if (performance.now() - t > JOB_TIMEOUT_MS) throw new Error(`(g) job ${jobId}: not terminal after ${JOB_TIMEOUT_MS} ms`);
        if (way === 'short') await sleep(POLL_MS);
      }
    };
    const scraps = sizes.pollJobs; // two jobs per scrap, every other scrap one way: pollJobs jobs each way
    const gStart = performance.now();
    let submitted = 0;
    await pool(scraps, 8, async (i) => {
      if (performance.now() - gStart > sizes.pollCapSeconds * 1000) return;
      submitted++;
      const way: Way = i % 2 === 0 ? 'short' : 'long';
      const r = await call('POST', '/scraps', { content: `${docs[i % docs.length]}\n\nbench ${runId} g-${i}` });
      await Promise.all([follow(way, r.analysisJobId as string), follow(way, r.refineJobId as string)]);
    });
    const rows = await db.asyncJob.findMany({ where: { jobId: { in: [...seen.short, ...seen.long].map((s) => s.jobId) } }, select: { jobId: true, finishedAt: true } });
    const finished = new Map(rows.map((r) => [r.jobId, r.finishedAt?.getTime()]));
    const stats = (way: Way) => {
      const delays = seen[way].flatMap((s) => {
        const at = finished.get(s.jobId);
        return at === undefined ? [] : [s.seenAt - at];
      });
      const requests = seen[way].reduce((n, s) => n + s.requests, 0);
      return { jobs: seen[way].length, requests, perJob: requests / Math.max(1, seen[way].length), delay: pcts(delays), failed: seen[way].filter((s) => s.status === 'FAILED').length };
    };
    const short = stats('short');
    const long = stats('long');
    for (const [name, st] of [[`polling every ${POLL_MS} ms`, short], ['long polling', long]] as const) {
      say(`${name}: ${st.jobs} jobs, ${st.requests} requests (${fmt(st.perJob, 2)} per job), completion → seen p50 ${ms(st.delay.p50)}, p95 ${ms(st.delay.p95)}${st.failed ? `, ${st.failed} FAILED` : ''}`);
    }
    if (submitted < scraps) say(`NOTE: ${submitted} of ${scraps} scraps: the ${sizes.pollCapSeconds} s cap of (g) was reached (machine busy)`);
    const requestRatio = long.requests / long.jobs / (short.requests / short.jobs);
    say(`ratio long/short: requests per job ${ratio(requestRatio)}, delay p50 ${ratio(long.delay.p50 / short.delay.p50)}, p95 ${ratio(long.delay.p95 / short.delay.p95)}`);
    return [
      {
        measure: `(g) GET requests per job until its completion is seen, ${long.jobs} + ${short.jobs} jobs`,
        subject: `${fmt(long.perJob, 2)} long polling (wait=${LONG_POLL_WAIT_S})`,
        baseline: `${fmt(short.perJob, 2)} polling every ${POLL_MS} ms`,
        ratio: ratio(requestRatio),
      },
      {
        measure: '(g) job completed → completion seen by the client, p50',
        subject: `${ms(long.delay.p50)} long polling`,
        baseline: `${ms(short.delay.p50)} polling every ${POLL_MS} ms`,
        ratio: ratio(long.delay.p50 / short.delay.p50),
      },
      {
        measure: '(g) job completed → completion seen by the client, p95',
        subject: `${ms(long.delay.p95)} long polling`,
        baseline: `${ms(short.delay.p95)} polling every ${POLL_MS} ms`,
        ratio: ratio(long.delay.p95 / short.delay.p95),
      },
    ];
  },
};
