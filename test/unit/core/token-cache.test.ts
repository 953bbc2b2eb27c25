/**
 * The bearer-token cache (src/auth/token-cache.ts): at most `max` entries, least
 * recently used evicted first; an entry expires `ttlMs` after its lookup whatever its use, so a
 * revoked token is refused once that bound has passed; unknown tokens are never cached; concurrent
 * lookups of one token share one query. The clock is injected: nothing here waits.
 */
import { createCachedTokenResolver } from '../../../src/auth/token-cache';
import { hashToken } from '../../../src/auth/tokens';

/** A fake token table by hash, counting lookups per hash. */
function table(entries: Record<string, string>) {
  const owners = new Map(Object.entries(entries).map(([token, user]) => [hashToken(token), user]));
  const lookups = new Map<string, number>();
  return {
    owners,
    lookups,
    count: (token: string) => lookups.get(hashToken(token)) ?? 0,
    lookup: async (hash: string) => {
      lookups.set(hash, (lookups.get(hash) ?? 0) + 1);
      return owners.get(hash) ?? null;
    },
  };
}

function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test('holds at most max entries and evicts the least recently used one', async () => {
  const tokens = Array.from({ length: 8 }, (_, i) => `djt_token-${i}`);
  const db = table(Object.fromEntries(tokens.map((t, i) => [t, `user-${i}`])));
  const c = clock();
  const cache = createCachedTokenResolver({ lookup: db.lookup, ttlMs: 3_000, max: 3, now: c.now });

  for (const t of tokens.slice(0, 3)) expect(await cache.resolve(t)).toBe(`user-${tokens.indexOf(t)}`);
  expect(cache.size()).toBe(3);
  await cache.resolve(tokens[0]!); // token 0 is now the most recently used; token 1 the least
  expect(db.count(tokens[0]!)).toBe(1); // a hit: no second lookup

  expect(await cache.resolve(tokens[3]!)).toBe('user-3');
  expect(cache.size()).toBe(3);
  await cache.resolve(tokens[1]!); // evicted: looked up again
  expect(db.count(tokens[1]!)).toBe(2);
  await cache.resolve(tokens[0]!);
  expect(db.count(tokens[0]!)).toBe(1); // kept

  for (const t of tokens) await cache.resolve(t);
  expect(cache.size()).toBe(3);
});

test('an entry expires ttlMs after its lookup, however often it is used, so a revocation takes effect within the bound', async () => {
  const db = table({ 'djt_alice': 'alice' });
  const c = clock();
  const cache = createCachedTokenResolver({ lookup: db.lookup, ttlMs: 2_000, max: 10, now: c.now });

  expect(await cache.resolve('djt_alice')).toBe('alice');
  db.owners.delete(hashToken('djt_alice')); // revoked in the database
  for (let i = 0; i < 4; i++) {
    c.advance(450); // used within the TTL: still the cached answer, and use does not extend it
    expect(await cache.resolve('djt_alice')).toBe('alice');
  }
  expect(db.count('djt_alice')).toBe(1);
  c.advance(201); // 2 001 ms after the lookup
  expect(await cache.resolve('djt_alice')).toBeNull();
  expect(db.count('djt_alice')).toBe(2);
});

test('unknown and revoked tokens are not cached: each presentation looks up, and a new token works at once', async () => {
  const db = table({});
  const c = clock();
  const cache = createCachedTokenResolver({ lookup: db.lookup, ttlMs: 3_000, max: 10, now: c.now });
  expect(await cache.resolve('djt_new')).toBeNull();
  expect(await cache.resolve('djt_new')).toBeNull();
  expect(db.count('djt_new')).toBe(2);
  expect(cache.size()).toBe(0);
  db.owners.set(hashToken('djt_new'), 'bob');
  expect(await cache.resolve('djt_new')).toBe('bob');
});

test('concurrent lookups of one token share one query; keys are hashes, never tokens', async () => {
  const db = table({ 'djt_carol': 'carol' });
  const cache = createCachedTokenResolver({ lookup: db.lookup, ttlMs: 3_000, max: 10 });
  const answers = await Promise.all(Array.from({ length: 16 }, () => cache.resolve('djt_carol')));
  expect(new Set(answers)).toEqual(new Set(['carol']));
  expect(db.count('djt_carol')).toBe(1);
  expect([...db.lookups.keys()]).toEqual([hashToken('djt_carol')]);
});

test('ttlMs 0 turns the cache off', async () => {
  const db = table({ 'djt_dave': 'dave' });
  const cache = createCachedTokenResolver({ lookup: db.lookup, ttlMs: 0, max: 10 });
  await cache.resolve('djt_dave');
  await cache.resolve('djt_dave');
  expect(db.count('djt_dave')).toBe(2);
  expect(cache.size()).toBe(0);
});

test('a failing lookup rejects and caches nothing', async () => {
  let fail = true;
  const cache = createCachedTokenResolver({
    lookup: async () => {
      if (fail) throw new Error('database down');
      return 'erin';
    },
    ttlMs: 3_000,
    max: 10,
  });
  await expect(cache.resolve('djt_erin')).rejects.toThrow('database down');
  fail = false;
  expect(await cache.resolve('djt_erin')).toBe('erin');
});
