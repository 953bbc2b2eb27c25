/**
 * Database round trips of the bench's own process, counted where every statement leaves it:
 * `pg.Client.prototype.query` (Prisma's driver adapter, the API's hot reads, the workers and the
 * LISTEN connection all go through it; a pool's `query` calls it once). Statement counts do not
 * depend on the machine's load, latencies do. The count covers the whole process (fastify's
 * `inject` does not carry an AsyncLocalStorage context into its handlers, so one request is
 * counted alone by counting while nothing else runs). Measurement only; no service code uses it.
 */
import { Client } from 'pg';

/** Statements counted, by their first SQL word (BEGIN, SELECT, INSERT, WITH …). */
export type StatementTally = Map<string, number>;

/** A running counter; {@link StatementCounter.stop} restores the driver. */
export interface StatementCounter {
  /** Statements of the whole process since the last {@link StatementCounter.reset}. */
  total(): number;
  /** The process's statements since the last reset, by first word. */
  tally(): StatementTally;
  reset(): void;
  /** Resets, runs `fn`, and answers what it returned and the process's statements meanwhile. */
  during<T>(fn: () => Promise<T>): Promise<{ value: T; tally: StatementTally }>;
  stop(): void;
}

const firstWord = (arg: unknown): string => {
  const text = typeof arg === 'string' ? arg : typeof arg === 'object' && arg !== null && 'text' in arg ? String((arg as { text: unknown }).text) : '';
  return (/^\s*([A-Za-z]+)/.exec(text)?.[1] ?? '?').toUpperCase();
};

/** Sum of a tally. */
export function tallyTotal(t: StatementTally): number {
  let n = 0;
  for (const v of t.values()) n += v;
  return n;
}

/** `12 (SELECT 8, INSERT 2, BEGIN 1, COMMIT 1)`, largest first. */
export function formatTally(t: StatementTally, per = 1): string {
  const f = (v: number) => (per === 1 ? String(v) : (v / per).toFixed(1));
  const parts = [...t.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${f(v)}`);
  return `${f(tallyTotal(t))} (${parts.join(', ')})`;
}

/** Starts counting (one counter at a time). */
export function countStatements(): StatementCounter {
  const original = Client.prototype.query;
  let all: StatementTally = new Map();
  const add = (t: StatementTally, w: string) => t.set(w, (t.get(w) ?? 0) + 1);
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const w = firstWord(args[0]);
    add(all, w);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return {
    total: () => tallyTotal(all),
    tally: () => new Map(all),
    reset() {
      all = new Map();
    },
    async during(fn) {
      all = new Map();
      const value = await fn();
      return { value, tally: new Map(all) };
    },
    stop() {
      Client.prototype.query = original;
    },
  };
}
