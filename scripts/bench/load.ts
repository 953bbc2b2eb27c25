/**
 * The HTTP load generator: autocannon in a worker thread, so that it does not share the API's
 * event loop, and the interleaved comparison of a subject's request rate with GET /health.
 */
import { Worker as Thread } from 'node:worker_threads';
import { say, trackThread } from './lifecycle';
import { fmt, rate } from './measure';

/** One load: where, what, how many connections, for how long or how many requests. */
export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  /** Paths cycled through, one per request. */
  paths: string[];
  headers: Record<string, string>;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration?: number;
  amount?: number;
  /** POST /scraps bodies: `{ content: docs[n % len] + "\n\n" + tag + "-" + n }`, distinct per request. */
  docs?: string[];
  /** One fixed body for every request (e.g. an idempotent replay). */
  body?: string;
  tag?: string;
}

/** What a load achieved. */
export interface LoadResult {
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Seconds from the start to the last response. */
  duration: number;
  /** 2xx responses per second. */
  rate: number;
  latencyP50: number;
  latencyP99: number;
}

const LOADGEN_SOURCE = `
const { parentPort, workerData: w } = require('node:worker_threads');
const autocannon = require(w.autocannon);
let n = 0;
const request = { method: w.method, path: w.paths[0], headers: w.headers };
if (w.body) request.body = w.body;
if (w.docs) {
  request.setupRequest = (req) => {
    const i = n++;
    return { ...req, body: JSON.stringify({ content: w.docs[i % w.docs.length] + '\\n\\n' + w.tag + '-' + i }) };
  };
} else if (w.paths.length > 1) {
  request.setupRequest = (req) => ({ ...req, path: w.paths[n++ % w.paths.length] });
}
const opts = { url: w.url, connections: w.connections, requests: [request], timeout: 30 };
if (w.amount) opts.amount = w.amount; else opts.duration = w.duration;
// Own clock: autocannon ends a run only at its next 1 s sampling tick, which would skew short runs.
const { performance } = require('node:perf_hooks');
const t0 = performance.now();
let last = t0;
const instance = autocannon(opts, (err, raw) => {
  if (err) return parentPort.postMessage({ error: String((err && err.stack) || err) });
  const r = autocannon.aggregateResult([raw], opts);
  const duration = (last - t0) / 1000;
  parentPort.postMessage({ result: {
    ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, duration,
    rate: r['2xx'] / duration, latencyP50: r.latency.p50, latencyP99: r.latency.p99,
  } });
});
instance.on('response', () => { last = performance.now(); });
`;

/** Runs one load in a worker thread. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const thread = new Thread(LOADGEN_SOURCE, { eval: true, workerData: { ...spec, autocannon: require.resolve('autocannon') } });
  const untrack = trackThread(thread);
  return new Promise<LoadResult>((resolve, reject) => {
    thread.once('message', (m: { result?: LoadResult; error?: string }) => (m.result ? resolve(m.result) : reject(new Error(`autocannon: ${m.error}`))));
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)));
  }).finally(() => {
    untrack();
    void thread.terminate();
  });
}

/** `64 ok in 1.6 s, latency p50 … / p99 …`, with the failures when there were any. */
export const describeLoad = (r: LoadResult): string =>
  `${r.ok} ok in ${fmt(r.duration, 1)} s` +
  (r.non2xx + r.errors + r.timeouts > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts` : '') +
  `, latency p50 ${r.latencyP50} ms / p99 ${r.latencyP99} ms`;

/** Rates (2xx/s) of a subject and of GET /health measured side by side. */
export interface RateComparison {
  subjectRate: number;
  healthRate: number;
}

/**
 * The subject's request rate against GET /health's on the same connections: one second of each to
 * warm up, then `halfSeconds` each in the order health, subject, subject, health (so that a drift
 * of the machine's load hits both alike); prints one line per measured load, named `name`.
 */
export async function compareWithHealth(subject: Omit<LoadSpec, 'duration' | 'amount'>, health: Omit<LoadSpec, 'duration' | 'amount'>, halfSeconds: number, name: string): Promise<RateComparison> {
  await runLoad({ ...health, duration: 1 });
  await runLoad({ ...subject, duration: 1 });
  const h1 = await runLoad({ ...health, duration: halfSeconds });
  const s1 = await runLoad({ ...subject, duration: halfSeconds });
  const s2 = await runLoad({ ...subject, duration: halfSeconds });
  const h2 = await runLoad({ ...health, duration: halfSeconds });
  const combined = (a: LoadResult, b: LoadResult) => (a.ok + b.ok) / (a.duration + b.duration);
  for (const [label, r] of [['health', h1], [name, s1], [name, s2], ['health', h2]] as const) say(`${label}: ${describeLoad(r)} = ${rate(r.rate)}`);
  if ([h1, s1, s2, h2].some((r) => r.non2xx + r.errors + r.timeouts > 0)) say('WARNING: non-2xx responses or errors; rates count 2xx only');
  return { subjectRate: combined(s1, s2), healthRate: combined(h1, h2) };
}
