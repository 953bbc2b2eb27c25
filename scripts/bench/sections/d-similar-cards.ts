/**
 * (d) GET /cards/{id}/similar-cards p50/p95 over the same cards of one user on PostgreSQL 15
 * (bytea, scored in JS) and on PGlite + pgvector, requests alternating between the two.
 */
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/api/app';
import { createUserWithToken } from '../../../src/auth/tokens';
import { FAMILY_API } from '../../../src/families';
import { createPrisma, type Db } from '../../../src/db/client';
import { encodeEmbedding } from '../../../src/db/vectors';
import { createCardSimilarity, storeCardVector } from '../../../src/services/scraps/similarity';
import { prng } from '../../../test/support/seeded';
import { elapsed, say, started } from '../lifecycle';
import { fmt, ms, pcts, ratio } from '../measure';
import type { BenchSection, StackContext } from '../section';

const DIM = 1536;

/**
 * `n` unit vectors (1536-d) in topic clusters of about 25 with varying spread, so the 0.5 threshold
 * finds a handful of neighbours for most cards, like real embeddings of related notes.
 */
function clusteredVectors(n: number, seed: number): Float32Array[] {
  const rand = prng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const unit = (v: Float64Array) => {
    let s = 0;
    for (const x of v) s += x * x;
    const norm = Math.sqrt(s);
    return Float32Array.from(v, (x) => x / norm);
  };
  const centers = Array.from({ length: Math.max(1, Math.ceil(n / 25)) }, () => unit(Float64Array.from({ length: DIM }, gauss)));
  return Array.from({ length: n }, (_, i) => {
    const center = centers[i % centers.length] as Float32Array;
    const s = Math.sqrt((0.2 + 1.5 * rand()) / DIM);
    return unit(Float64Array.from(center, (c) => c + s * gauss()));
  });
}

interface SeedCard {
  id: string;
  scrapId: string;
  embedding: Float32Array;
}

function seedCards(n: number): SeedCard[] {
  return clusteredVectors(n, 20261130).map((embedding) => ({ id: randomUUID(), scrapId: randomUUID(), embedding }));
}

/**
 * Inserts the cards (and their scraps) for `userId` with Prisma createMany in batches of 200;
 * with `vectors`, also fills the pgvector column through storeCardVector (a no-op without it).
 */
async function insertCards(db: Db, userId: string, cards: SeedCard[], vectors: boolean): Promise<void> {
  const category = await db.category.upsert({ where: { name: 'Bench' }, create: { name: 'Bench' }, update: {} });
  for (let i = 0; i < cards.length; i += 200) {
    const chunk = cards.slice(i, i + 200);
    await db.scrap.createMany({
      data: chunk.map((c, j) => {
        const content = `bench card ${i + j}`;
        return { id: c.scrapId, userId, content, contentHash: createHash('sha256').update(content).digest('hex') };
      }),
    });
    await db.knowledgeCard.createMany({
      data: chunk.map((c, j) => ({
        id: c.id,
        userId,
        scrapId: c.scrapId,
        categoryId: category.id,
        title: `Bench card ${i + j}`,
        summary: `Seeded card ${i + j} for the similar-cards benchmark.`,
        embedding: encodeEmbedding(c.embedding),
      })),
    });
  }
  if (vectors) for (const c of cards) await storeCardVector(db, c.id, c.embedding);
}

/** (d)'s data: the same cards for one user in each database, and an app over PGlite. */
export interface SimilarCardsData {
  cards: SeedCard[];
  pgToken: string;
  pgliteToken: string;
  pgliteApp: FastifyInstance;
  notes: string[];
}

/** (d)'s data per run, prepared during (a)'s drain when (a) runs. */
const preparedFor = new WeakMap<StackContext['shared'], SimilarCardsData>();

/**
 * Seeds the same cards (ids and vectors) for one user in PostgreSQL 15 and in PGlite and builds an
 * app over PGlite. (a) runs it while its backlog drains, when nothing is measured.
 * @throws Error when the strategies are not bytea on PostgreSQL 15 and pgvector on PGlite.
 */
export async function prepareSimilarCards(ctx: StackContext): Promise<SimilarCardsData> {
  const { stack, sizes, runId } = ctx;
  const notes: string[] = [];
  const cards = seedCards(sizes.cards);
  let t = performance.now();
  const pgUser = await createUserWithToken(stack.db, `bench-similar-${runId}`);
  await insertCards(stack.db, pgUser.userId, cards, false);
  notes.push(`PostgreSQL 15: ${cards.length} cards seeded in ${fmt((performance.now() - t) / 1000, 1)} s, strategy ${stack.similarity.strategy}`);
  t = performance.now();
  const edb = createPrisma(stack.embedded.url, { poolMax: stack.embedded.poolMax });
  started('Prisma (PGlite)', () => edb.$disconnect());
  const eUser = await createUserWithToken(edb, `bench-similar-${runId}`);
  await insertCards(edb, eUser.userId, cards, true);
  const eSimilarity = await createCardSimilarity(edb, 'auto');
  const noStarts = { start: () => Promise.reject(new Error('the similar-cards app starts no jobs')) };
  const eApp = await buildApp({ ...FAMILY_API, config: stack.config, db: edb, starter: noStarts, logger: stack.logger });
  started('API (PGlite)', () => eApp.close());
  await eApp.ready();
  notes.push(`PGlite: ${cards.length} cards seeded (vectors through storeCardVector) in ${fmt((performance.now() - t) / 1000, 1)} s, strategy ${eSimilarity.strategy}`);
  if (stack.similarity.strategy !== 'bytea' || eSimilarity.strategy !== 'pgvector') {
    throw new Error(`expected bytea on PostgreSQL 15 and pgvector on PGlite, got ${stack.similarity.strategy} and ${eSimilarity.strategy}`);
  }
  const data = { cards, pgToken: pgUser.token, pgliteToken: eUser.token, pgliteApp: eApp, notes };
  preparedFor.set(ctx.shared, data);
  return data;
}

/** One similar-cards request through `app.inject`: its time and the answer's card ids. */
async function similar(app: FastifyInstance, token: string, id: string): Promise<{ elapsed: number; ids: string[] }> {
  const s = performance.now();
  const res = await app.inject({ method: 'GET', url: `/cards/${id}/similar-cards`, headers: { authorization: `Bearer ${token}` } });
  const took = performance.now() - s;
  if (res.statusCode !== 200) throw new Error(`similar-cards → ${res.statusCode} ${res.body}`);
  return { elapsed: took, ids: (res.json() as { cards: { cardId: string }[] }).cards.map((c) => c.cardId) };
}

/** Section (d). */
export const sectionD: BenchSection = {
  letter: 'd',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack } = ctx;
    const app = stack.app;
    if (!app) throw new Error('(d) needs the in-process API (not on the cluster topology)');
    say();
    say(`## (d) GET /cards/{id}/similar-cards, ${sizes.cards} cards of one user, ${sizes.similarRuns} requests each (alternating) ${elapsed()}`);
    const prepared = preparedFor.get(ctx.shared) ?? (await prepareSimilarCards(ctx));
    const { cards, pgToken, pgliteToken, pgliteApp } = prepared;
    for (const note of prepared.notes) say(note);
    const rand = prng(7);
    const targets = Array.from({ length: sizes.similarRuns + 5 }, () => (cards[Math.floor(rand() * cards.length)] as SeedCard).id);
    const byteaLat: number[] = [];
    const vecLat: number[] = [];
    let same = 0;
    let neighbours = 0;
    for (const [i, id] of targets.entries()) {
      const onPg = () => similar(app, pgToken, id);
      const onVec = () => similar(pgliteApp, pgliteToken, id);
      let pgRes: Awaited<ReturnType<typeof similar>>;
      let vecRes: Awaited<ReturnType<typeof similar>>;
      if (i % 2 === 0) {
        pgRes = await onPg();
        vecRes = await onVec();
      } else {
        vecRes = await onVec();
        pgRes = await onPg();
      }
      if (i < 5) continue; // warm-up
      byteaLat.push(pgRes.elapsed);
      vecLat.push(vecRes.elapsed);
      neighbours += pgRes.ids.length;
      if (pgRes.ids.join() === vecRes.ids.join()) same++;
    }
    const bytea = pcts(byteaLat);
    const vec = pcts(vecLat);
    say(`PostgreSQL 15, bytea scored in JS: p50 ${ms(bytea.p50)}, p95 ${ms(bytea.p95)}`);
    say(`PGlite + pgvector <=>:            p50 ${ms(vec.p50)}, p95 ${ms(vec.p95)}`);
    say(`same cards in the same order: ${same}/${byteaLat.length} answers; ${fmt(neighbours / byteaLat.length, 1)} cards per answer on average`);
    say(`ratio bytea/pgvector: p50 ${ratio(bytea.p50 / vec.p50)}, p95 ${ratio(bytea.p95 / vec.p95)}`);
    return [
      { measure: `(d) similar-cards, ${sizes.cards} cards, p50`, subject: `${ms(bytea.p50)} PostgreSQL 15 bytea`, baseline: `${ms(vec.p50)} PGlite pgvector`, ratio: ratio(bytea.p50 / vec.p50) },
      { measure: `(d) similar-cards, ${sizes.cards} cards, p95`, subject: `${ms(bytea.p95)} PostgreSQL 15 bytea`, baseline: `${ms(vec.p95)} PGlite pgvector`, ratio: ratio(bytea.p95 / vec.p95) },
    ];
  },
};
