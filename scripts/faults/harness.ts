/**
 * Shared harness of the bounded fault scripts (`scripts/faults/*.ts`): their own PostgreSQL 15 and
 * Temporal dev server (free loopback ports, temp directories), both stoppable and restartable on
 * the same port and data, the API and the `jobs` and `ai` workers in this process (the integration
 * tests' stack), a hard deadline, and clean-up of everything started, also on error and Ctrl-C.
 * Only loopback traffic.
 */
import './quiet-runtime';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrismaClient } from '@prisma/client';
import { getFreePort, startTemporalDevServer, type TemporalDevServer } from '../../src/dev/temporal-server';
import { startPostgres, type TestPostgres } from '../../test/support/postgres';
import { startStack, type Stack, type StackOptions } from '../../test/support/stack';

/** Prints one line with the seconds since start. */
export function say(line: string): void {
  process.stdout.write(`[${((Date.now() - T0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
}
const T0 = Date.now();

/** Bound on each clean-up step, so a hung shutdown cannot keep the script alive. */
const CLEANUP_STEP_MS = 30_000;
const cleanups: Array<() => Promise<void>> = [];
let cleaning: Promise<void> | undefined;

/** Runs the registered clean-ups, last first; idempotent. */
export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of cleanups.reverse()) {
      const bound = sleep(CLEANUP_STEP_MS).then(() => say(`clean-up step still running after ${CLEANUP_STEP_MS / 1000} s; going on`));
      await Promise.race([c().catch((err: unknown) => say(`clean-up: ${String(err)}`)), bound]);
    }
  })();
  return cleaning;
}

/**
 * Runs `main` within `deadlineMs`; exits 0 when it resolves true, 1 when false or on an error, 2 on
 * the deadline. Everything registered with the harness is stopped first in every case.
 */
export function runBounded(name: string, deadlineMs: number, main: () => Promise<boolean>): void {
  const exit = async (code: number) => {
    await cleanUp();
    process.exit(code);
  };
  const timer = setTimeout(() => {
    say(`${name}: deadline of ${deadlineMs / 1000} s exceeded`);
    void exit(2);
  }, deadlineMs);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void exit(130));
  main().then(
    (ok) => {
      clearTimeout(timer);
      say(`${name}: ${ok ? 'PASS' : 'FAIL'}`);
      void exit(ok ? 0 : 1);
    },
    (err: unknown) => {
      clearTimeout(timer);
      say(`${name}: ERROR ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      void exit(1);
    },
  );
}

/** A Temporal dev server that can be stopped and started again on the same port and SQLite file. */
export interface RestartableTemporal {
  address: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Starts a dev server with a SQLite file in a temp directory (deleted at clean-up). */
export async function startRestartableTemporal(): Promise<RestartableTemporal> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fault-temporal-'));
  const port = await getFreePort();
  const uiPort = await getFreePort();
  const opts = { port, uiPort, dbFilename: path.join(dir, 'temporal.sqlite'), logFile: path.join(dir, 'server.log'), log: say };
  let server: TemporalDevServer | undefined = await startTemporalDevServer(opts);
  cleanups.push(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    address: server.address,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      server ??= await startTemporalDevServer(opts);
    },
  };
}

/** Servers and the in-process stack of one fault script. */
export interface FaultEnv {
  pg: TestPostgres;
  temporal: RestartableTemporal;
  stack: Stack;
}

/** Starts PostgreSQL, Temporal and the stack (API + `jobs` and `ai` workers) for a fault script. */
export async function startFaultEnv(opts: StackOptions = {}): Promise<FaultEnv> {
  const [pg, temporal] = await Promise.all([startPostgres(), startRestartableTemporal()]);
  cleanups.push(() => pg.stop());
  process.env.TEST_PG_ADMIN_URL = pg.adminUrl;
  process.env.TEST_TEMPORAL_ADDRESS = temporal.address;
  const stack = await startStack(opts);
  cleanups.push(() => stack.stop());
  say(`servers up: PostgreSQL ${pg.adminUrl}, Temporal ${temporal.address}, task-queue prefix ${stack.config.temporal.taskQueuePrefix}`);
  return { pg, temporal, stack };
}

/** async_jobs counts by status. */
export async function jobCounts(db: PrismaClient): Promise<Record<string, number>> {
  const rows = await db.asyncJob.groupBy({ by: ['status'], _count: { _all: true } });
  return Object.fromEntries(rows.map((r) => [r.status, r._count._all]));
}

/**
 * Polls until no job is PENDING or PROCESSING (true) or `timeoutMs` passed (false), printing the
 * counts every `everyMs`. Database errors while polling (an outage) are reported and waited out.
 */
export async function waitForJobsSettled(db: PrismaClient, timeoutMs: number, everyMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let lastPrint = 0;
  for (;;) {
    try {
      const counts = await jobCounts(db);
      const active = (counts.PENDING ?? 0) + (counts.PROCESSING ?? 0);
      if (Date.now() - lastPrint >= everyMs || active === 0) {
        say(`jobs: ${JSON.stringify(counts)}`);
        lastPrint = Date.now();
      }
      if (active === 0) return true;
    } catch (err) {
      say(`poll failed: ${String(err).split('\n').pop()}`);
    }
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
}

/** Runs `fn` over `items` with at most `concurrency` in flight; returns the results in order. */
export async function mapLimit<T, R>(items: readonly T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!, i);
    }),
  );
  return out;
}

/** Distinct scrap texts: a realistic paragraph plus a unique line each. */
export function scrapTexts(n: number, label: string): string[] {
  const base = `PostgreSQL B-tree indexes keep keys sorted, so equality and range queries can use an index
scan. Partial indexes cover only the rows matching a predicate; EXPLAIN ANALYZE shows the plan.`;
  return Array.from({ length: n }, (_, i) => `${base}\n\n${label} scrap ${i} ${T0}`);
}

/** Integer command-line option `--name=value` or `--name value`, else `fallback`. */
export function intArg(name: string, fallback: number): number {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = a.startsWith(`--${name}=`) ? a.slice(name.length + 3) : a === `--${name}` ? argv[i + 1] : undefined;
    if (v !== undefined) {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${v}`);
      return n;
    }
  }
  return fallback;
}
