/** The bench's measurement helpers: latency statistics, number formats, a bounded pool, and the drain of open jobs (following one job: follow.ts). */
import { performance } from 'node:perf_hooks';
import type { Db } from '../../src/db/client';
import { assertWorkersAlive, sleep } from './lifecycle';

/** Nearest-rank percentile of `values`, p in (0, 100]; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The nearest-rank median (p50) of `values`. */
export const median = (values: readonly number[]): number => percentile(values, 50);

/** p50 and p95 of some latencies (ms) and how many there were. */
export interface Pcts {
  p50: number;
  p95: number;
  n: number;
}
/** {@link Pcts} of `values`. */
export const pcts = (values: readonly number[]): Pcts => ({ p50: percentile(values, 50), p95: percentile(values, 95), n: values.length });

/** Runs `fn(0 … n-1)` with at most `concurrency` in flight; resolves with the wall time in ms. */
export async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  return performance.now() - t0;
}

/** `x` with `digits` decimals, `n/a` when not finite. */
export const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
/** A duration in ms: two decimals under 10 ms, else one. */
export const ms = (x: number): string => `${fmt(x, x < 10 ? 2 : 1)} ms`;
/** A rate per second: one decimal under 100/s, else none. */
export const rate = (x: number): string => `${fmt(x, x < 100 ? 1 : 0)}/s`;
/** A ratio: two decimals, two significant digits below 0.01 (e.g. a query count against thousands). */
export const ratio = (x: number): string => `${Number.isFinite(x) && x > 0 && x < 0.01 ? x.toPrecision(2) : fmt(x, 2)}×`;

/** Waits until no async job is PENDING or PROCESSING (bounded); returns the wait in ms. */
export async function drain(db: Db, what: string, timeoutMs = 180_000): Promise<number> {
  const t = performance.now();
  for (;;) {
    assertWorkersAlive();
    const open = await db.asyncJob.count({ where: { status: { in: ['PENDING', 'PROCESSING'] } } });
    if (open === 0) return performance.now() - t;
    if (performance.now() - t > timeoutMs) throw new Error(`${what}: ${open} jobs still open after ${timeoutMs} ms`);
    await sleep(100);
  }
}
