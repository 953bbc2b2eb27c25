/**
 * (b) POST /scraps → CARD_ANALYSIS COMPLETED, learnt by GET /async-jobs long polls, p50/p95, against
 * `noopWorkflow` start → result (half before, half after); with the CPU per scrap and the median
 * of each phase of sampled runs' histories.
 */
import { Worker as Thread } from 'node:worker_threads';
import { jobWorkflowId } from '../../../src/core/contracts';
import { cpuDiff, cpuReport, cpuSnapshot, sumCpu } from '../cpu';
import { assertWorkersAlive, elapsed, say, trackThread } from '../lifecycle';
import { fmt, ms, pcts, ratio } from '../measure';
import { JOB_TIMEOUT_MS, LONG_POLL_WAIT_S } from '../options';
import { phaseReport, type PhaseSample } from '../phases';
import type { BenchSection } from '../section';

/**
 * The clients in a worker thread, like the autocannon loads: `concurrency` loops, each submitting
 * a scrap (POST /scraps), then following both its jobs at once by long polling
 * (`GET /async-jobs/{id}`, then `If-None-Match` + `Prefer: wait=<waitS>`, the API's way to learn of
 * a change), until both are terminal, then the next; no submission after `capMs`. The
 * baseline's client learns of a no-op's end the same way, by the SDK's long poll (`result()`).
 */
const SUBMIT_AND_POLL_SOURCE = `
const { parentPort, workerData: w } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const call = async (method, url, body) => {
  const res = await fetch(w.apiUrl + url, { method, headers: w.headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(method + ' ' + url + ' → ' + res.status + ' ' + JSON.stringify(json));
  return json;
};
/** The job's status once terminal: long polls from the ETag of the first answer. */
const follow = async (id, t, scrapId) => {
  let etag;
  for (;;) {
    const headers = etag ? { ...w.headers, 'if-none-match': etag, prefer: 'wait=' + w.waitS } : w.headers;
    const res = await fetch(w.apiUrl + '/async-jobs/' + id, { headers });
    if (res.status === 304) { await res.arrayBuffer(); continue; }
    const json = await res.json();
    if (res.status !== 200) throw new Error('GET /async-jobs/' + id + ' → ' + res.status + ' ' + JSON.stringify(json));
    if (json.status === 'COMPLETED' || json.status === 'FAILED') return json.status;
    etag = res.headers.get('etag') || undefined;
    if (performance.now() - t > w.jobTimeoutMs) throw new Error('scrap ' + scrapId + ': job ' + id + ' not terminal after ' + w.jobTimeoutMs + ' ms');
  }
};
const out = { analysisLat: [], bothLat: [], failed: 0, submitted: 0, samples: [], jobIds: [] };
const t0 = performance.now();
let next = 0;
const client = async () => {
  while (next < w.n) {
    const i = next++;
    if (performance.now() - t0 > w.capMs) return;
    out.submitted++;
    const t = performance.now();
    const submittedAt = Date.now();
    const r = await call('POST', '/scraps', { content: w.docs[i % w.docs.length] + '\\n\\nbench ' + w.runId + ' b-' + i });
    const sample = { scrapId: r.scrapId, submittedAt, analysisSeenAt: undefined, refineSeenAt: undefined };
    out.samples.push(sample);
    const jobs = [[r.analysisJobId, 'analysis']];
    if (r.refineJobId) jobs.push([r.refineJobId, 'refine']);
    out.jobIds.push(...jobs.map(([id]) => id));
    await Promise.all(jobs.map(async ([id, kind]) => {
      const status = await follow(id, t, r.scrapId);
      if (status === 'FAILED') out.failed++;
      else if (kind === 'analysis') out.analysisLat.push(performance.now() - t);
      sample[kind + 'SeenAt'] = Date.now();
    }));
    out.bothLat.push(performance.now() - t);
  }
};
Promise.all(Array.from({ length: Math.min(w.n, w.concurrency) }, client))
  .then(() => parentPort.postMessage({ result: { ...out, wallMs: performance.now() - t0 } }))
  .catch((err) => parentPort.postMessage({ error: String((err && err.stack) || err) }));
`;

interface SubmitAndPollResult {
  analysisLat: number[];
  bothLat: number[];
  failed: number;
  submitted: number;
  samples: { scrapId: string; submittedAt: number; analysisSeenAt?: number; refineSeenAt?: number }[];
  jobIds: string[];
  wallMs: number;
}

/** Runs the clients in a worker thread ({@link SUBMIT_AND_POLL_SOURCE}); rejects as soon as a Temporal worker fails. */
function submitAndPoll(spec: { apiUrl: string; headers: Record<string, string>; docs: string[]; runId: string; n: number; concurrency: number; capMs: number; waitS: number; jobTimeoutMs: number }): Promise<SubmitAndPollResult> {
  const thread = new Thread(SUBMIT_AND_POLL_SOURCE, { eval: true, workerData: spec });
  const untrack = trackThread(thread);
  let watch: NodeJS.Timeout | undefined;
  return new Promise<SubmitAndPollResult>((resolve, reject) => {
    watch = setInterval(() => {
      try {
        assertWorkersAlive();
      } catch (err) {
        reject(err as Error);
      }
    }, 500);
    thread.once('message', (m: { result?: SubmitAndPollResult; error?: string }) => (m.result ? resolve(m.result) : reject(new Error(`(b) clients: ${m.error}`))));
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`(b) clients exited with ${code}`)));
  }).finally(() => {
    clearInterval(watch);
    untrack();
    void thread.terminate();
  });
}

/** Section (b); leaves its job IDs for (c). */
export const sectionB: BenchSection = {
  letter: 'b',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack, headers, docs, runId, noop } = ctx;
    say();
    say(`## (b) submit → COMPLETED (GET /async-jobs long polls, Prefer: wait=${LONG_POLL_WAIT_S}), ${sizes.latencyScraps} scraps, concurrency ${sizes.latencyConcurrency} ${elapsed()}`);
    await noop.latencies(16, sizes.latencyConcurrency); // warm-up
    let cBase = cpuSnapshot();
    const baseLat = await noop.latencies(sizes.latencyScraps / 2, sizes.latencyConcurrency);
    let baseCpu = cpuDiff(cBase, cpuSnapshot());
    const cSubject = cpuSnapshot();
    const sub = await submitAndPoll({
      apiUrl: stack.apiUrl, headers, docs, runId, n: sizes.latencyScraps, concurrency: sizes.latencyConcurrency, capMs: sizes.latencyCapSeconds * 1000, waitS: LONG_POLL_WAIT_S, jobTimeoutMs: JOB_TIMEOUT_MS,
    });
    const { analysisLat, bothLat, failed, submitted } = sub;
    ctx.shared.jobIds.push(...sub.jobIds);
    const scrapSamples = sub.samples.map((x) => ({
      analysis: { workflowId: jobWorkflowId('CARD_ANALYSIS', x.scrapId), submittedAt: x.submittedAt, ...(x.analysisSeenAt ? { seenAt: x.analysisSeenAt } : {}) } satisfies PhaseSample,
      refine: { workflowId: jobWorkflowId('SCRAP_REFINE', x.scrapId), submittedAt: x.submittedAt, ...(x.refineSeenAt ? { seenAt: x.refineSeenAt } : {}) } satisfies PhaseSample,
    }));
    const subjectCpu = cpuDiff(cSubject, cpuSnapshot());
    cBase = cpuSnapshot();
    const noopSamples: PhaseSample[] = [];
    const noopN = Math.max(8, Math.round(submitted / 2));
    baseLat.push(...(await noop.latencies(noopN, sizes.latencyConcurrency, noopSamples)));
    baseCpu = sumCpu(baseCpu, cpuDiff(cBase, cpuSnapshot()));
    const analysis = pcts(analysisLat);
    const both = pcts(bothLat);
    const base = pcts(baseLat);
    say(`CARD_ANALYSIS COMPLETED: p50 ${ms(analysis.p50)}, p95 ${ms(analysis.p95)} (n=${analysis.n}${failed ? `, ${failed} jobs FAILED` : ''})`);
    say(`both jobs (analysis + refine) COMPLETED: p50 ${ms(both.p50)}, p95 ${ms(both.p95)}; ${submitted} scraps in ${fmt(sub.wallMs / 1000, 1)} s`);
    if (submitted < sizes.latencyScraps) say(`NOTE: ${submitted} of ${sizes.latencyScraps} scraps: the ${sizes.latencyCapSeconds} s cap of (b) was reached (machine busy)`);
    say(`baseline noopWorkflow start → result: p50 ${ms(base.p50)}, p95 ${ms(base.p95)} (n=${base.n}, half before and half after)`);
    say(`ratio p50 ${ratio(analysis.p50 / base.p50)}, p95 ${ratio(analysis.p95 / base.p95)}`);
    // Profile: CPU per scrap (both jobs, the polls included) vs per no-op round trip, and where the
    // latency of one scrap goes, from the histories of the middle half of the scraps.
    for (const l of cpuReport({ cpu: subjectCpu, items: submitted, name: 'scrap (both jobs, polled)' }, { cpu: baseCpu, items: sizes.latencyScraps / 2 + noopN, name: 'noop round trip' })) say(l);
    const mid = scrapSamples.slice(Math.floor(scrapSamples.length / 4), Math.floor(scrapSamples.length / 4) + 40);
    for (const l of await phaseReport(stack.client, 'CARD_ANALYSIS', mid.map((x) => x.analysis))) say(l);
    for (const l of await phaseReport(stack.client, 'SCRAP_REFINE', mid.map((x) => x.refine))) say(l);
    for (const l of await phaseReport(stack.client, 'noopWorkflow (second half)', noopSamples.slice(0, 40))) say(l);
    return [
      { measure: '(b) submit → CARD_ANALYSIS COMPLETED, p50', subject: ms(analysis.p50), baseline: `${ms(base.p50)} noopWorkflow start → result`, ratio: ratio(analysis.p50 / base.p50) },
      { measure: '(b) submit → CARD_ANALYSIS COMPLETED, p95', subject: ms(analysis.p95), baseline: `${ms(base.p95)} noopWorkflow start → result`, ratio: ratio(analysis.p95 / base.p95) },
    ];
  },
};
