/**
 * (g) How a client learns that a job completed, on every family's status resource
 * (GET /async-jobs/{jobId}, GET /api/v1/ai-runs/{aiRunId}, GET /portal/link/jobs/{jobId},
 * GET /study/memo-card-jobs/{jobId}): by short polling (a GET every POLL_MS) or by long polling
 * (`If-None-Match` + `Prefer: wait`). Per family, in turn, sizes.pollJobs jobs created at
 * concurrency 8 through the typed client (families.ts), alternately followed one way or the other
 * (both jobs of a scrap the same way), so both ways run under the same load at the same time. Per
 * job: the GET requests from the create until the terminal status is seen, and the delay from
 * the projection's terminal write (finished_at / completed_at, written by the workers in this
 * process: same clock) to the moment the client sees it. Last, what the typed client costs per
 * status GET against a bare fetch of the same URL.
 */
import { performance } from 'node:perf_hooks';
import { ok } from '../../lib/api-client';
import { aiRunFamily, follow, memoCardFamily, portalFamily, scrapFamily, type BenchFamily } from '../families';
import { wayStats, type PollWay, type SeenJob } from '../follow';
import { elapsed, say } from '../lifecycle';
import { drain, fmt, median, ms, pool, ratio } from '../measure';
import { LONG_POLL_WAIT_S, POLL_MS } from '../options';
import type { BenchSection, StackContext } from '../section';
import type { Row } from '../summary';

/** Section (g); the stack runs the portal parts for its portal family. */
export const sectionG: BenchSection = {
  letter: 'g',
  needs: 'stack',
  portal: true,
  async run(ctx) {
    const { sizes } = ctx;
    const jobs = sizes.pollJobs;
    say();
    say(`## (g) completion seen by polling every ${POLL_MS} ms vs long polling (Prefer: wait=${LONG_POLL_WAIT_S}), per family ${jobs} jobs, half each way ${elapsed()}`);
    await drain(ctx.stack.db, '(g) start');
    const scraps = await compareWays(ctx, scrapFamily(ctx), jobs);
    const rows: Row[] = [...scraps.rows];
    const others: (() => Promise<BenchFamily>)[] = [
      async () => (await aiRunFamily(ctx, 'g')).family,
      () => portalFamily(ctx, jobs, 'g'),
      () => memoCardFamily(ctx, jobs, 'g'),
    ];
    for (const make of others) rows.push(...(await compareWays(ctx, await make(), jobs)).rows);
    if (scraps.sample) rows.push(await typedClientCost(ctx, scraps.sample));
    return rows;
  },
};

/** One family's short vs long polling: its say lines and two summary rows; `sample` is a job seen terminal. */
async function compareWays(ctx: StackContext, family: BenchFamily, jobs: number): Promise<{ rows: Row[]; sample?: string }> {
  const { sizes } = ctx;
  say(`### ${family.name}: ${family.resource} ${elapsed()}`);
  const seen: Record<PollWay, SeenJob[]> = { short: [], long: [] };
  const creates = Math.ceil(jobs / family.jobsPerCreate);
  const start = performance.now();
  let submitted = 0;
  await pool(creates, 8, async (i) => {
    if (performance.now() - start > sizes.pollCapSeconds * 1000) return;
    submitted++;
    const way: PollWay = i % 2 === 0 ? 'short' : 'long';
    const ids = await family.create(i, 'g');
    await Promise.all(ids.map(async (id) => void seen[way].push({ id, ...(await follow(family, id, way)) })));
  });
  const finished = await family.finishedAt([...seen.short, ...seen.long].map((s) => s.id));
  const short = wayStats(seen.short, finished, family.failed);
  const long = wayStats(seen.long, finished, family.failed);
  for (const [name, st] of [[`polling every ${POLL_MS} ms`, short], ['long polling', long]] as const) {
    say(`${name}: ${st.jobs} jobs, ${st.requests} requests (${fmt(st.perJob, 2)} per job), terminal write → seen p50 ${ms(st.delay.p50)}, p95 ${ms(st.delay.p95)} (n=${st.delay.n})${st.failed ? `, ${st.failed} ${family.failed.join('/')}` : ''}`);
  }
  if (submitted < creates) say(`NOTE: ${submitted} of ${creates} creates: the ${sizes.pollCapSeconds} s cap per family of (g) was reached (machine busy)`);
  const requestRatio = long.perJob / short.perJob;
  say(`ratio long/short: requests per job ${ratio(requestRatio)}, delay p50 ${ratio(long.delay.p50 / short.delay.p50)}, p95 ${ratio(long.delay.p95 / short.delay.p95)}`);
  const rows: Row[] = [
    {
      measure: `(g) ${family.resource}: GET requests per job until its completion is seen, ${long.jobs} + ${short.jobs} jobs`,
      subject: `${fmt(long.perJob, 2)} long polling (wait=${LONG_POLL_WAIT_S})`,
      baseline: `${fmt(short.perJob, 2)} polling every ${POLL_MS} ms`,
      ratio: ratio(requestRatio),
    },
    {
      measure: `(g) ${family.resource}: terminal write → seen by the client, p50 (p95)`,
      subject: `${ms(long.delay.p50)} (${ms(long.delay.p95)}) long polling`,
      baseline: `${ms(short.delay.p50)} (${ms(short.delay.p95)}) polling every ${POLL_MS} ms`,
      ratio: `${ratio(long.delay.p50 / short.delay.p50)} (${ratio(long.delay.p95 / short.delay.p95)})`,
    },
  ];
  const sample = seen.short[0]?.id ?? seen.long[0]?.id;
  return { rows, ...(sample ? { sample } : {}) };
}

/**
 * The typed client's cost per status read: GET /async-jobs/{jobId} of a terminal job through
 * openapi-fetch (its answer parsed) and by a bare fetch (answer parsed), alternately, one at a
 * time; the medians and their ratio.
 */
async function typedClientCost(ctx: StackContext, jobId: string): Promise<Row> {
  const rounds = ctx.quick ? 100 : 400;
  const url = `${ctx.stack.apiUrl}/async-jobs/${jobId}`;
  const headers = { authorization: ctx.headers.authorization as string };
  const typed: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await ok('GET /async-jobs/{jobId}', ctx.api.GET('/async-jobs/{jobId}', { params: { path: { jobId } } }));
    typed.push(performance.now() - t);
    t = performance.now();
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`(g) GET ${url} → ${res.status}`);
    await res.json();
    bare.push(performance.now() - t);
  }
  const [tm, bm] = [median(typed), median(bare)];
  say(`typed client: GET /async-jobs/{jobId} median ${ms(tm)} through openapi-fetch vs ${ms(bm)} bare fetch (${rounds} each, alternating): ${fmt((tm - bm) * 1000, 0)} µs per request, ratio ${ratio(tm / bm)}`);
  return { measure: `(g) typed client: status GET, median of ${rounds}`, subject: `${ms(tm)} openapi-fetch`, baseline: `${ms(bm)} bare fetch`, ratio: ratio(tm / bm) };
}
