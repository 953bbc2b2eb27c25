/**
 * PO-5 bounds of an adapter's requests: {@link createLimiter} caps concurrent requests (the pages
 * of one scrape; every scrape's requests to one portal from one worker process), and
 * {@link PageGroup} runs a scrape's independent pages together and stops them all at the first
 * failure, so an outage, a markup error or a failed login is one failure, not one per page.
 */

/** A counting semaphore; waiters are served in arrival order. */
export interface Limiter {
  /**
   * Runs `fn` once fewer than the limit run; resolves or rejects with it. A `signal` aborted
   * while waiting rejects with its reason and never runs `fn`.
   */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** How many run now (for tests and diagnostics). */
  active(): number;
}

/** A {@link Limiter} of at most `limit` (an integer ≥ 1) concurrent runs. */
export function createLimiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer ≥ 1, got ${limit}`);
  let running = 0;
  const waiting: Array<() => void> = [];
  const acquire = (signal?: AbortSignal): Promise<void> => {
    signal?.throwIfAborted();
    if (running < limit) {
      running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = waiting.indexOf(grant);
        if (at >= 0) waiting.splice(at, 1);
        reject(signal?.reason);
      };
      waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
  // The slot passes straight to the next waiter: a caller arriving meanwhile cannot take it.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return {
    async run(fn, signal) {
      await acquire(signal);
      try {
        return await fn();
      } finally {
        release();
      }
    },
    active: () => running,
  };
}

/**
 * The pages of one scrape: `signal` aborts once any of them failed (or the caller's signal
 * aborted), so requests not yet sent are never sent and those in flight are cut short.
 */
export class PageGroup {
  private readonly stop = new AbortController();
  /** The group's first failure, shared by nested {@link all} calls. */
  private first: { error: unknown } | undefined;
  /** Aborted at the first failure of {@link all}, or with the caller's signal. */
  readonly signal: AbortSignal;

  constructor(outer?: AbortSignal) {
    this.signal = outer ? AbortSignal.any([outer, this.stop.signal]) : this.stop.signal;
  }

  /**
   * Runs `fn`; its failure stops the group at once (before whatever `fn` held is freed, so a page
   * waiting for the slot of a failed one is never sent), and is rethrown.
   */
  async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  /** Records `error` as the group's failure unless it has one, and aborts {@link signal}. */
  private fail(error: unknown): void {
    if (this.first) return;
    this.first = { error };
    this.stop.abort(error);
  }

  /**
   * Like `Promise.all`, but waits until every promise settled, and rejects with the group's
   * first rejection (aborting {@link signal} at once; calls may nest), whatever the later ones
   * were: pages cut short by the abort never hide the cause.
   */
  async all<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
    const settled = await Promise.allSettled(
      (promises as readonly Promise<unknown>[]).map((p) =>
        p.catch((error: unknown) => {
          this.fail(error);
          throw error;
        }),
      ),
    );
    if (this.first) throw this.first.error;
    return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
  }
}
