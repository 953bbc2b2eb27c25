/**
 * SAN-7 similar cards: the same seeded cards in PostgreSQL 15 (bytea strategy) and in embedded
 * PGlite (pgvector and bytea strategies) must give the same ids in the same order, distances
 * within 1e-5, and match a brute-force reference. Timings are in `npm run bench` (d).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPrisma, type Db } from '../../../src/db/client';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/db/embedded';
import { migrateDeploy } from '../../../src/db/migrate';
import {
  createCardSimilarity,
  hasVectorColumn,
  storeCardVector,
  type CardSimilarity,
  type SimilarityQuery,
  type SimilarityResult,
} from '../../../src/services/scraps/similarity';
import { cosineDistance, encodeEmbedding } from '../../../src/db/vectors';
import { createTestDatabase, startPostgres, type TestDatabase, type TestPostgres } from '../../support/postgres';
import { prng } from '../../support/seeded';

jest.setTimeout(120_000);

const DIM = 1536;
const THRESHOLD = 0.5;
const TOLERANCE = 1e-5;


function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

function unit(v: Float64Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return Float32Array.from(v, (x) => x / n);
}

function randomUnit(rand: () => number): Float32Array {
  return unit(Float64Array.from({ length: DIM }, () => gaussian(rand)));
}

/** center + gaussian noise with squared norm about `spread` (distance to center ≈ 1 - 1/sqrt(1+spread)). */
function around(center: Float32Array, spread: number, rand: () => number): Float32Array {
  const s = Math.sqrt(spread / DIM);
  return unit(Float64Array.from(center, (c) => c + s * gaussian(rand)));
}

function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

interface SeedCard {
  id: string;
  userId: string;
  scrapId: string;
  title: string;
  embedding: Float32Array;
}

interface Seed {
  userA: string;
  userB: string;
  categoryId: string;
  cards: SeedCard[];
  centers: Float32Array[];
  /** Two user-A cards with the very same embedding. */
  duplicatePair: [string, string];
}

/** 200 user-A cards (5 clusters of 36 with varying spread + 20 scattered), 30 user-B cards copying cluster 0. */
function buildSeed(seed: number): Seed {
  const rand = prng(seed);
  const userA = uuid(rand);
  const userB = uuid(rand);
  const categoryId = uuid(rand);
  const centers = Array.from({ length: 5 }, () => randomUnit(rand));
  const cards: SeedCard[] = [];
  const add = (userId: string, embedding: Float32Array) => {
    const n = cards.length;
    cards.push({ id: uuid(rand), userId, scrapId: uuid(rand), title: `card ${n}`, embedding });
  };
  centers.forEach((center) => {
    for (let i = 0; i < 36; i++) add(userA, around(center, 0.15 + 3 * rand(), rand));
  });
  for (let i = 0; i < 20; i++) add(userA, randomUnit(rand));
  const dupSource = cards[40] as SeedCard;
  (cards[41] as SeedCard).embedding = Float32Array.from(dupSource.embedding);
  for (let i = 0; i < 30; i++) add(userB, Float32Array.from((cards[i] as SeedCard).embedding));
  return { userA, userB, categoryId, cards, centers, duplicatePair: [dupSource.id, (cards[41] as SeedCard).id] };
}

async function seedDatabase(db: Db, seed: Seed, opts: { vectors: boolean; userNames: [string, string] }): Promise<void> {
  await db.user.createMany({
    data: [
      { id: seed.userA, name: opts.userNames[0] },
      { id: seed.userB, name: opts.userNames[1] },
    ],
  });
  await db.category.upsert({ where: { id: seed.categoryId }, create: { id: seed.categoryId, name: `cat-${seed.categoryId}` }, update: {} });
  for (let i = 0; i < seed.cards.length; i += 100) {
    const chunk = seed.cards.slice(i, i + 100);
    await db.scrap.createMany({
      data: chunk.map((c) => ({
        id: c.scrapId,
        userId: c.userId,
        content: `scrap of ${c.title}`,
        contentHash: createHash('sha256').update(`scrap of ${c.title}`).digest('hex'),
      })),
    });
    await db.knowledgeCard.createMany({
      data: chunk.map((c) => ({
        id: c.id,
        userId: c.userId,
        scrapId: c.scrapId,
        categoryId: seed.categoryId,
        title: c.title,
        summary: `summary of ${c.title}`,
        embedding: encodeEmbedding(c.embedding),
      })),
    });
    if (opts.vectors) {
      await db.$transaction(
        async (tx) => {
          for (const c of chunk) await storeCardVector(tx, c.id, c.embedding);
        },
        { timeout: 60_000 },
      );
    }
  }
}

/** Brute force over the seed: full sort by (distance, id), threshold prefix up to limit, else K nearest. */
function reference(seed: Seed, q: SimilarityQuery): SimilarityResult & { ranked: number[] } {
  const query = Float32Array.from(q.vector);
  const ranked = seed.cards
    .filter((c) => c.userId === q.userId && !q.excludeCardIds.includes(c.id))
    .map((c) => ({ cardId: c.id, scrapId: c.scrapId, title: c.title, distance: cosineDistance(query, c.embedding) }))
    .sort((a, b) => a.distance - b.distance || (a.cardId < b.cardId ? -1 : 1));
  const matched = ranked.filter((c) => c.distance <= q.threshold).slice(0, q.limit ?? 20);
  const cards = matched.length > 0 ? matched : ranked.slice(0, q.fallbackK);
  return { matchedBy: matched.length > 0 ? 'threshold' : 'fallback', cards, ranked: ranked.map((c) => c.distance) };
}

/** Guards the seed: no distance within 1e-4 of the threshold, no distinct distances closer than 1e-5. */
function assertUnambiguous(ref: ReturnType<typeof reference>, threshold: number): void {
  for (const d of ref.ranked) expect(Math.abs(d - threshold)).toBeGreaterThan(1e-4);
  const shown = ref.ranked.slice(0, Math.max(ref.cards.length + 1, 2));
  for (let i = 1; i < shown.length; i++) {
    const gap = (shown[i] as number) - (shown[i - 1] as number);
    expect(gap === 0 || gap > TOLERANCE).toBe(true);
  }
}

function expectSameResult(actual: SimilarityResult, expected: SimilarityResult, label: string): void {
  expect({ label, matchedBy: actual.matchedBy, ids: actual.cards.map((c) => c.cardId) }).toEqual({
    label,
    matchedBy: expected.matchedBy,
    ids: expected.cards.map((c) => c.cardId),
  });
  actual.cards.forEach((c, i) => {
    const e = expected.cards[i]!;
    expect(c.scrapId).toBe(e.scrapId);
    expect(c.title).toBe(e.title);
    expect(Math.abs(c.distance - e.distance)).toBeLessThanOrEqual(TOLERANCE);
  });
}

describe('SAN-7 similar cards: pgvector (PGlite) and bytea (PostgreSQL 15, PGlite) agree', () => {
  const seed = buildSeed(20261130);
  let ownServer: TestPostgres | undefined;
  let pgDatabase: TestDatabase;
  let pg: Db;
  let embeddedDir: string;
  let embedded: EmbeddedPostgres;
  let lite: Db;
  let strategies: { name: string; similarity: CardSimilarity }[];

  beforeAll(async () => {
    let adminUrl = process.env.TEST_PG_ADMIN_URL;
    if (!adminUrl) {
      ownServer = await startPostgres();
      adminUrl = ownServer.adminUrl;
    }
    embeddedDir = await mkdtemp(path.join(os.tmpdir(), 'pglite-test-'));
    const [database, emb] = await Promise.allSettled([
      createTestDatabase(adminUrl),
      startEmbeddedPostgres({ dataDir: embeddedDir, port: 0 }).then(async (e) => {
        embedded = e;
        await migrateDeploy(e.url);
        return e;
      }),
    ]);
    if (database.status === 'fulfilled') pgDatabase = database.value;
    if (database.status === 'rejected') throw database.reason;
    if (emb.status === 'rejected') throw emb.reason;
    pg = createPrisma(pgDatabase.url, { poolMax: 4 });
    lite = createPrisma(embedded.url, { poolMax: embedded.poolMax });
    const seeded = await Promise.allSettled([
      seedDatabase(pg, seed, { vectors: true, userNames: ['alice', 'bob'] }),
      seedDatabase(lite, seed, { vectors: true, userNames: ['alice', 'bob'] }),
    ]);
    for (const r of seeded) if (r.status === 'rejected') throw r.reason;
    strategies = [
      { name: 'PostgreSQL 15 / bytea', similarity: await createCardSimilarity(pg, 'auto') },
      { name: 'PGlite / pgvector', similarity: await createCardSimilarity(lite, 'auto') },
      { name: 'PGlite / bytea', similarity: await createCardSimilarity(lite, 'bytea') },
    ];
  }, 300_000);

  afterAll(async () => {
    await pg?.$disconnect();
    await lite?.$disconnect();
    await embedded?.stop();
    await pgDatabase?.drop();
    await ownServer?.stop();
    if (embeddedDir) await rm(embeddedDir, { recursive: true, force: true });
  });

  it('auto picks pgvector where embedding_vec exists and bytea elsewhere', async () => {
    expect(strategies.map((s) => s.similarity.strategy)).toEqual(['bytea', 'pgvector', 'bytea']);
    await expect(hasVectorColumn(pg)).resolves.toBe(false);
    await expect(hasVectorColumn(lite)).resolves.toBe(true);
    await expect(createCardSimilarity(pg, 'pgvector')).rejects.toThrow(/embedding_vec is absent/);
    const missing = await lite.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM knowledge_cards WHERE embedding_vec IS NULL`;
    expect(missing[0]?.n).toBe(0);
  });

  const byIndex = (i: number) => seed.cards[i]!;
  const cases: { label: string; query: () => SimilarityQuery; expectMatchedBy: 'threshold' | 'fallback' }[] = [
    {
      label: 'cluster centre, default limit',
      query: () => ({ userId: seed.userA, vector: seed.centers[0]!, excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5 }),
      expectMatchedBy: 'threshold',
    },
    {
      label: "a card's own embedding, that card excluded",
      query: () => ({
        userId: seed.userA,
        vector: byIndex(80).embedding,
        excludeCardIds: [byIndex(80).id],
        threshold: THRESHOLD,
        fallbackK: 5,
      }),
      expectMatchedBy: 'threshold',
    },
    {
      label: 'cluster centre, limit 3',
      query: () => ({ userId: seed.userA, vector: seed.centers[2]!, excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5, limit: 3 }),
      expectMatchedBy: 'threshold',
    },
    {
      label: 'identical embeddings tie, broken by cardId',
      query: () => ({ userId: seed.userA, vector: byIndex(40).embedding, excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5 }),
      expectMatchedBy: 'threshold',
    },
    {
      label: 'unrelated vector falls back to the 5 nearest',
      query: () => ({ userId: seed.userA, vector: randomUnit(prng(7)), excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5 }),
      expectMatchedBy: 'fallback',
    },
    {
      label: 'tight threshold falls back, K = 12',
      query: () => ({ userId: seed.userA, vector: seed.centers[3]!, excludeCardIds: [], threshold: 0.02, fallbackK: 12 }),
      expectMatchedBy: 'fallback',
    },
    {
      label: 'user B sees only their own cards',
      query: () => ({ userId: seed.userB, vector: seed.centers[0]!, excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5 }),
      expectMatchedBy: 'threshold',
    },
    {
      label: 'excluding several cards of a cluster',
      query: () => ({
        userId: seed.userA,
        vector: seed.centers[1]!,
        excludeCardIds: seed.cards.slice(36, 50).map((c) => c.id),
        threshold: THRESHOLD,
        fallbackK: 5,
      }),
      expectMatchedBy: 'threshold',
    },
  ];

  it.each(cases.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    const q = c.query();
    const expected = reference(seed, q);
    assertUnambiguous(expected, q.threshold);
    expect(expected.matchedBy).toBe(c.expectMatchedBy);
    expect(expected.cards.length).toBeGreaterThan(0);
    for (const s of strategies) expectSameResult(await s.similarity.search(q), expected, s.name);
  });

  it('never returns excluded cards or another user’s cards', async () => {
    const owner = new Map(seed.cards.map((c) => [c.id, c.userId]));
    const excluded = seed.cards.filter((c) => c.userId === seed.userA).slice(0, 36).map((c) => c.id);
    for (const s of strategies) {
      for (const vector of [seed.centers[0]!, byIndex(5).embedding]) {
        for (const threshold of [THRESHOLD, -1]) {
          const r = await s.similarity.search({ userId: seed.userA, vector, excludeCardIds: excluded, threshold, fallbackK: 50 });
          expect(r.cards.length).toBeGreaterThan(0);
          for (const card of r.cards) {
            expect(owner.get(card.cardId)).toBe(seed.userA);
            expect(excluded).not.toContain(card.cardId);
          }
        }
      }
    }
  });

  it('duplicate embeddings come back in cardId order at distance ~0', async () => {
    const [a, b] = [...seed.duplicatePair].sort();
    for (const s of strategies) {
      const r = await s.similarity.search({ userId: seed.userA, vector: byIndex(40).embedding, excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5 });
      expect(r.cards.slice(0, 2).map((c) => c.cardId)).toEqual([a, b]);
      expect(r.cards[0]!.distance).toBeLessThan(TOLERANCE);
    }
  });

  it('all cards excluded: fallback with no cards', async () => {
    const all = seed.cards.filter((c) => c.userId === seed.userA).map((c) => c.id);
    for (const s of strategies) {
      await expect(
        s.similarity.search({ userId: seed.userA, vector: seed.centers[0]!, excludeCardIds: all, threshold: THRESHOLD, fallbackK: 5 }),
      ).resolves.toEqual({ matchedBy: 'fallback', cards: [] });
    }
  });

  it('rejects a zero or non-finite query vector', async () => {
    for (const s of strategies) {
      const base = { userId: seed.userA, excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5 };
      await expect(s.similarity.search({ ...base, vector: new Float32Array(DIM) })).rejects.toBeInstanceOf(RangeError);
      await expect(s.similarity.search({ ...base, vector: [Number.NaN] })).rejects.toBeInstanceOf(RangeError);
    }
  });

  it('storeCardVector is a no-op without the pgvector column', async () => {
    await expect(storeCardVector(pg, byIndex(0).id, byIndex(0).embedding)).resolves.toBeUndefined();
  });

  it('the embedded database persists in dataDir across restarts', async () => {
    const q: SimilarityQuery = { userId: seed.userA, vector: seed.centers[4]!, excludeCardIds: [], threshold: THRESHOLD, fallbackK: 5 };
    const before = await strategies[1]!.similarity.search(q);
    await lite.$disconnect();
    await embedded.stop();
    embedded = await startEmbeddedPostgres({ dataDir: embeddedDir, port: 0 });
    lite = createPrisma(embedded.url, { poolMax: embedded.poolMax });
    const again = await createCardSimilarity(lite, 'auto');
    strategies[1] = { name: 'PGlite / pgvector', similarity: again };
    strategies[2] = { name: 'PGlite / bytea', similarity: await createCardSimilarity(lite, 'bytea') };
    expect(again.strategy).toBe('pgvector');
    expect(await lite.knowledgeCard.count()).toBe(seed.cards.length);
    expect(await again.search(q)).toEqual(before);
  });
});
