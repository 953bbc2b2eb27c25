/** The read coalescer of the hot path (src/db/read-coalescer.ts): one statement in flight per key, waiters answered by the next one, never by an earlier one. */
import { createReadCoalescer } from '../../../src/db/read-coalescer';

/** A store whose reads resolve only when released, recording the value each read saw when it started. */
function gatedStore() {
  let value = 0;
  const started: number[] = [];
  const gates: (() => void)[] = [];
  const load = () => {
    const seen = value;
    started.push(seen);
    return new Promise<{ v: number } | null>((resolve) => gates.push(() => resolve(seen < 0 ? null : { v: seen })));
  };
  return {
    load,
    started,
    set: (v: number) => { value = v; },
    release: async () => { gates.shift()!(); await new Promise((r) => setImmediate(r)); },
  };
}

describe('createReadCoalescer', () => {
  it('reads arriving while a statement is in flight are answered by the next statement, which starts after them', async () => {
    const store = gatedStore();
    const read = createReadCoalescer<{ v: number }>();
    const first = read('k', store.load);
    store.set(1); // a write after the first read started, before the next ones arrive
    const later = [read('k', store.load), read('k', store.load), read('k', store.load)];
    expect(store.started).toEqual([0]);
    await store.release();
    await expect(first).resolves.toEqual({ v: 0 });
    expect(store.started).toEqual([0, 1]); // one statement for the three waiting reads
    await store.release();
    await expect(Promise.all(later)).resolves.toEqual([{ v: 1 }, { v: 1 }, { v: 1 }]);
    // Nothing is cached: a read after the burst issues its own statement.
    store.set(2);
    const after = read('k', store.load);
    await store.release();
    await expect(after).resolves.toEqual({ v: 2 });
    expect(store.started).toEqual([0, 1, 2]);
  });

  it('gives each read its own copy of the row, and null when there is none', async () => {
    const read = createReadCoalescer<{ v: number }>();
    const store = gatedStore();
    void read('k', store.load);
    const a = read('k', store.load);
    const b = read('k', store.load);
    await store.release();
    await store.release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra).toEqual(rb);
    expect(ra).not.toBe(rb);
    store.set(-1);
    const none = read('k', store.load);
    await store.release();
    await expect(none).resolves.toBeNull();
  });

  it('different keys never share a statement', async () => {
    const read = createReadCoalescer<{ k: string }>();
    const calls: string[] = [];
    const loadOf = (k: string) => async () => { calls.push(k); return { k }; };
    await expect(Promise.all([read('a', loadOf('a')), read('b', loadOf('b'))])).resolves.toEqual([{ k: 'a' }, { k: 'b' }]);
    expect(calls).toEqual(['a', 'b']);
  });

  it('a failed statement rejects the reads it was issued for, and only those', async () => {
    const read = createReadCoalescer<{ n: number }>();
    let n = 0;
    let fail = true;
    const load = () => new Promise<{ n: number }>((resolve, reject) => setImmediate(() => (fail ? reject(new Error(`boom ${++n}`)) : resolve({ n: ++n }))));
    const first = read('k', load);
    const waiting = read('k', load);
    await expect(first).rejects.toThrow('boom 1');
    fail = false;
    await expect(waiting).resolves.toEqual({ n: 2 });
  });
});
