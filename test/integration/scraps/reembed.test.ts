/**
 * SAN-7, SAN-9: switching embedding models. Similar cards compare only vectors of the
 * query's model, and the re-embedding pass (src/services/scraps/reembed.ts, `npm run reembed`) moves
 * every card and TIL to the provider's model; an interrupted pass continues where it stopped. Real
 * PostgreSQL 15 (bytea strategy).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createLocalAiProvider, LOCAL_EMBEDDING_MODEL, localEmbedding, withEmbeddings, zeroPad } from '../../../src/ai';
import { createScrapsAi } from '../../../src/ai/scraps';
import { createPrisma, type Db } from '../../../src/db/client';
import { decodeEmbedding, encodeEmbedding } from '../../../src/db/vectors';
import { reembed } from '../../../src/services/scraps/reembed';
import { createCardSimilarity } from '../../../src/services/scraps/similarity';
import { createTestDatabase, startPostgres, type TestDatabase, type TestPostgres } from '../../support/postgres';
import { PG_INDEX_A, PG_INDEX_B, BREAD, TLS, OS_SCHED_KO } from '../../unit/ai/corpus';

jest.setTimeout(120_000);

const NEW_MODEL = 'test-e5@1';
/** A stand-in for another model: a different (but deterministic) 384-d vector of the same text. */
const newVector = (text: string) => zeroPad(localEmbedding(`${text} 🌳`).slice(0, 384));
const newModelAi = () => createScrapsAi(withEmbeddings(createLocalAiProvider(), { model: NEW_MODEL, embed: async (texts) => texts.map(newVector) }));

let server: TestPostgres | undefined;
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  let adminUrl = process.env.TEST_PG_ADMIN_URL;
  if (!adminUrl) {
    server = await startPostgres();
    adminUrl = server.adminUrl;
  }
  database = await createTestDatabase(adminUrl);
  db = createPrisma(database.url, { poolMax: 4 });
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
  await server?.stop();
});

async function seedUser(texts: string[]): Promise<{ userId: string; cardIds: string[] }> {
  const user = await db.user.create({ data: { name: `reembed-${randomUUID()}` } });
  const category = await db.category.upsert({ where: { name: 'Data' }, create: { name: 'Data' }, update: {} });
  const cardIds: string[] = [];
  for (const content of texts) {
    const scrap = await db.scrap.create({ data: { userId: user.id, content, contentHash: createHash('sha256').update(content).digest('hex') } });
    const card = await db.knowledgeCard.create({
      data: { userId: user.id, scrapId: scrap.id, categoryId: category.id, title: content.slice(0, 30), summary: 's', embedding: new Uint8Array(encodeEmbedding(localEmbedding(content))) },
    });
    cardIds.push(card.id);
  }
  await db.dailySummary.create({
    data: { userId: user.id, targetDate: new Date('2026-12-01T00:00:00Z'), title: 'TIL', tilMarkdown: `# TIL\n\n${PG_INDEX_A}`, embedding: new Uint8Array(encodeEmbedding(localEmbedding(PG_INDEX_A))) },
  });
  return { userId: user.id, cardIds };
}

test('similar cards compare only vectors of the query\'s model', async () => {
  const { userId, cardIds } = await seedUser([PG_INDEX_A, PG_INDEX_B, BREAD]);
  // Card 2 moves to the new model: a local-model query does not see it, a new-model one sees only it.
  await db.knowledgeCard.update({ where: { id: cardIds[2] }, data: { embeddingModel: NEW_MODEL, embedding: new Uint8Array(encodeEmbedding(newVector(BREAD))) } });
  const similarity = await createCardSimilarity(db, 'bytea');
  const q = { userId, excludeCardIds: [cardIds[0] as string], threshold: 2, fallbackK: 5 };
  const local = await similarity.search({ ...q, vector: localEmbedding(PG_INDEX_A), model: LOCAL_EMBEDDING_MODEL });
  expect(local.cards.map((c) => c.cardId)).toEqual([cardIds[1]]);
  const other = await similarity.search({ ...q, vector: newVector(PG_INDEX_A), model: NEW_MODEL });
  expect(other.cards.map((c) => c.cardId)).toEqual([cardIds[2]]);
});

test('re-embedding moves every card and TIL to the new model, resumes after an interruption and then has nothing to do', async () => {
  const texts = [PG_INDEX_A, PG_INDEX_B, BREAD, TLS, OS_SCHED_KO];
  const { userId, cardIds } = await seedUser(texts);
  const mine = () => db.knowledgeCard.findMany({ where: { userId }, select: { id: true, embeddingModel: true, embedding: true, scrap: { select: { content: true } } } });
  const onOther = async () => (await db.knowledgeCard.count({ where: { embeddingModel: { not: NEW_MODEL } } })) + (await db.dailySummary.count({ where: { embeddingModel: { not: NEW_MODEL }, embedding: { not: null } } }));

  // An interrupted pass: it stops after 2 rows; those are on the new model, the rest untouched.
  const before = await onOther();
  const first = await reembed(db, newModelAi(), { batchSize: 2, maxRows: 2 });
  expect(first.cards + first.tils).toBe(2);
  expect(await onOther()).toBe(before - 2);

  const rest = await reembed(db, newModelAi(), { batchSize: 2 });
  expect(rest.cards + rest.tils).toBe(before - 2);
  expect(await onOther()).toBe(0);
  for (const c of await mine()) {
    expect(c.embeddingModel).toBe(NEW_MODEL);
    expect(Array.from(decodeEmbedding(c.embedding))).toEqual(Array.from(Float32Array.from(newVector(c.scrap.content))));
  }
  const til = await db.dailySummary.findFirstOrThrow({ where: { userId } });
  expect(til.embeddingModel).toBe(NEW_MODEL);
  expect(Array.from(decodeEmbedding(til.embedding as Uint8Array))).toEqual(Array.from(Float32Array.from(newVector(til.tilMarkdown ?? ''))));

  expect(await reembed(db, newModelAi())).toEqual({ model: NEW_MODEL, cards: 0, tils: 0 });
  expect(cardIds).toHaveLength(texts.length);
});
