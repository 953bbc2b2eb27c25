/** PO-5 the adapters' request bounds: the limiter's cap and hand-over, and a page group's first-failure stop. */
import { createLimiter, PageGroup } from '../../../src/services/portal/adapters/concurrency';

/** A promise settled from outside. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise<void>((r) => setImmediate(r));

describe('createLimiter', () => {
  it('runs at most `limit` at once and starts waiters in arrival order as slots free', async () => {
    const limiter = createLimiter(2);
    const gates = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    let peak = 0;
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        peak = Math.max(peak, limiter.active());
        await g.promise;
        return i;
      }),
    );
    await flush();
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await flush();
    expect(started).toEqual([0, 1, 2]);
    // a caller arriving while a slot is handed over does not jump the queue
    const late = limiter.run(async () => 'late');
    gates[0]!.resolve();
    await flush();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates) g.resolve();
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2, 3, 4]);
    await expect(late).resolves.toBe('late');
    expect(peak).toBe(2);
    expect(limiter.active()).toBe(0);
  });

  it('frees the slot when the run fails', async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
    expect(limiter.active()).toBe(0);
  });

  it('a signal aborted while waiting rejects with its reason and never runs the function', async () => {
    const limiter = createLimiter(1);
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const ac = new AbortController();
    const fn = jest.fn(async () => 'ran');
    const waiting = limiter.run(fn, ac.signal);
    ac.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    gate.resolve();
    await first;
    expect(fn).not.toHaveBeenCalled();
    expect(limiter.active()).toBe(0);
    const already = new AbortController();
    already.abort(new Error('before'));
    await expect(limiter.run(fn, already.signal)).rejects.toThrow('before');
  });

  it('refuses a limit below 1', () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
  });
});

describe('PageGroup', () => {
  it('resolves every value in order', async () => {
    const group = new PageGroup();
    await expect(group.all([Promise.resolve(1), Promise.resolve('a')] as const)).resolves.toEqual([1, 'a']);
    expect(group.signal.aborted).toBe(false);
  });

  it('aborts its signal at the first failure, waits for the others, and rejects with that first failure', async () => {
    const group = new PageGroup();
    const slow = deferred<number>();
    let settledSlow = false;
    const cause = new Error('markup');
    const all = group.all([
      Promise.reject(cause),
      slow.promise.finally(() => {
        settledSlow = true;
      }),
    ] as const);
    await flush();
    expect(group.signal.aborted).toBe(true);
    expect(group.signal.reason).toBe(cause);
    let done = false;
    void all.catch(() => {
      done = true;
    });
    await flush();
    expect(done).toBe(false); // still waiting for the page in flight
    slow.reject(new Error('aborted by the group'));
    await expect(all).rejects.toBe(cause);
    expect(settledSlow).toBe(true);
  });

  it('nested groups keep the first failure even when an outer sibling, cut short, fails earlier', async () => {
    const group = new PageGroup();
    const cause = new Error('semester page markup');
    // An outer page that fails as soon as the group aborts (as a fetch does).
    const outer = new Promise<never>((_res, rej) => group.signal.addEventListener('abort', () => rej(new Error('aborted')), { once: true }));
    const inner = flush().then(() => group.all([Promise.reject(cause), flush().then(() => flush()).then(() => 1)] as const));
    await expect(group.all([outer, inner] as const)).rejects.toBe(cause);
  });

  it('the caller\'s signal aborts the group', () => {
    const ac = new AbortController();
    const group = new PageGroup(ac.signal);
    ac.abort(new Error('cancelled'));
    expect(group.signal.aborted).toBe(true);
    expect((group.signal.reason as Error).message).toBe('cancelled');
  });
});
