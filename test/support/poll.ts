/**
 * The one polling helper of the tests: calls a probe until its value satisfies a predicate,
 * sleeping between attempts with a growing interval, and fails with the last value on timeout.
 * Every test or test helper that waits for the database or Temporal to reach a state uses it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

/**
 * Bound on a test server's start-up (PostgreSQL, Temporal, the time-skipping server, moto): it
 * guards progress only, so it is generous for a loaded machine; a server that exits fails at once,
 * with its log.
 */
export const SERVER_START_TIMEOUT_MS = 180_000;

/** Options of {@link pollUntil}. */
export interface PollOptions {
  /** What is awaited, in words ("job <id> to finish"): the start of the timeout message. */
  describe: string;
  /**
   * Give up once this many ms (default 30 000) have passed since the first attempt. Checked between
   * attempts: an attempt in flight (e.g. a long-poll on a workflow result) is not cut short.
   */
  timeoutMs?: number;
  /** First sleep between attempts in ms (default 50), multiplied by 1.5 after each miss. */
  intervalMs?: number;
  /** Upper bound of the sleep between attempts in ms (default 1 000). */
  maxIntervalMs?: number;
}

/** Thrown by {@link pollUntil} when the predicate never held; carries the last value seen. */
export class PollTimeoutError extends Error {
  constructor(
    message: string,
    readonly lastValue: unknown,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'PollTimeoutError';
  }
}

/**
 * Calls `probe` until `predicate(value)` holds and returns that value. Between attempts it sleeps
 * `intervalMs`, growing by 1.5x up to `maxIntervalMs` (never a tight loop).
 * @throws PollTimeoutError after `timeoutMs` with `describe`, the attempt count and the last value.
 * @throws whatever `probe` or `predicate` throws, at once: a probe that must tolerate errors (a
 *   server still starting) catches them and returns them as its value.
 */
export async function pollUntil<T, U extends T>(probe: () => Promise<T> | T, predicate: (value: T) => value is U, opts: PollOptions): Promise<U>;
export async function pollUntil<T>(probe: () => Promise<T> | T, predicate: (value: T) => boolean, opts: PollOptions): Promise<T>;
export async function pollUntil<T>(probe: () => Promise<T> | T, predicate: (value: T) => boolean, opts: PollOptions): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxIntervalMs = opts.maxIntervalMs ?? 1_000;
  let interval = Math.min(opts.intervalMs ?? 50, maxIntervalMs);
  const started = Date.now();
  for (let attempts = 1; ; attempts += 1) {
    const value = await probe();
    if (predicate(value)) return value;
    const remaining = started + timeoutMs - Date.now();
    if (remaining <= 0) {
      const last = inspect(value, { depth: 4, breakLength: Infinity, maxStringLength: 2_000 });
      throw new PollTimeoutError(`timed out after ${timeoutMs} ms (${attempts} attempts) waiting for ${opts.describe}; last value: ${last}`, value, attempts);
    }
    await sleep(Math.min(interval, remaining));
    interval = Math.min(interval * 1.5, maxIntervalMs);
  }
}
