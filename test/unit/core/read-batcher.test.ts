/** The read batcher of the hot path (src/db/read-batcher.ts): one load per event-loop turn, results by key, errors per batch. */
import { createReadBatcher } from '../../../src/db/read-batcher';

/** A load that records each batch and answers `v<key>`, leaving out keys in `missing`. */
function recordingLoad(missing: ReadonlySet<number> = new Set()) {
  const batches: number[][] = [];
  const load = async (keys: readonly number[]) => {
    batches.push([...keys]);
    return keys.map((k) => (missing.has(k) ? undefined : `v${k}`));
  };
  return { batches, load };
}

describe('createReadBatcher', () => {
  it('answers the reads of one turn with one load, each read its own value (undefined when absent)', async () => {
    const { batches, load } = recordingLoad(new Set([3]));
    const read = createReadBatcher(load, { maxBatch: 100 });
    await expect(Promise.all([read(1), read(2), read(3), read(4)])).resolves.toEqual(['v1', 'v2', undefined, 'v4']);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it('reads of a later turn go into a new load (nothing is cached)', async () => {
    const { batches, load } = recordingLoad();
    const read = createReadBatcher(load, { maxBatch: 100 });
    await expect(read(1)).resolves.toBe('v1');
    await expect(read(1)).resolves.toBe('v1');
    expect(batches).toEqual([[1], [1]]);
  });

  it('splits a turn into loads of at most maxBatch keys', async () => {
    const { batches, load } = recordingLoad();
    const read = createReadBatcher(load, { maxBatch: 3 });
    const keys = [1, 2, 3, 4, 5, 6, 7];
    await expect(Promise.all(keys.map(read))).resolves.toEqual(keys.map((k) => `v${k}`));
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it('a failed load rejects every read of its batch, and only those', async () => {
    let calls = 0;
    const read = createReadBatcher(async (keys: readonly number[]) => {
      calls++;
      if (calls === 1) throw new Error('connection lost');
      return keys.map((k) => k * 10);
    }, { maxBatch: 100 });
    const first = await Promise.allSettled([read(1), read(2)]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((first[0] as PromiseRejectedResult).reason).toEqual(new Error('connection lost'));
    await expect(read(3)).resolves.toBe(30);
  });

  it('a load that throws before returning a promise rejects its reads too', async () => {
    const read = createReadBatcher<number, number>(() => {
      throw new Error('bad statement');
    }, { maxBatch: 10 });
    await expect(read(1)).rejects.toThrow('bad statement');
  });
});
