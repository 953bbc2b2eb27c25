import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import { createJobActivities } from '../../../src/activities/core/jobs';
import { createCardActivities } from '../../../src/activities/scraps/cards';
import { createLocalAiProvider } from '../../../src/ai/local';
import { createScrapsAi } from '../../../src/ai/scraps';
import { analyzeScrapLocally } from '../../../src/ai/scraps/extractive/analysis';
import { analysisEmbedding, createAiActivities, type CardAnalysisResult } from '../../../src/activities/scraps/ai';
import type { CardAnalysis } from '../../../src/ai/scraps/answers';
import { createUserWithToken } from '../../../src/auth/tokens';
import { createPrisma } from '../../../src/db/client';
import { enqueueIfNoneActive, transitionJob } from '../../../src/core/projection';
import { PG_INDEXES, PG_PARTIAL } from '../../fixtures/texts';
import { createTestDatabase } from '../../support/postgres';

let db: PrismaClient;
let drop: () => Promise<void>;
let userId: string;
const starter = { start: jest.fn(async () => 'started' as const) };
const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
let acts: ReturnType<typeof createJobActivities> & ReturnType<typeof createCardActivities>;

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 10 });
  userId = (await createUserWithToken(db, 'projection')).userId;
  acts = { ...createJobActivities({ db, starter }), ...createCardActivities({ db }) };
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

async function newScrapWithJob(content: string) {
  const scrap = await db.scrap.create({ data: { userId, content, contentHash: `${Math.random()}`.padEnd(64, '0').slice(0, 64) } });
  const { job } = await enqueueIfNoneActive(db, { jobType: 'CARD_ANALYSIS', targetId: scrap.id, userId });
  return { scrap, job };
}

it('a late or repeated transition is a no-op: COMPLETED never goes back to PROCESSING', async () => {
  const { job } = await newScrapWithJob('t1');
  expect(await transitionJob(db, job.jobId, 'PROCESSING')).toEqual({ changed: true, status: 'PROCESSING' });
  expect(await transitionJob(db, job.jobId, 'PROCESSING')).toEqual({ changed: false, status: 'PROCESSING' });
  expect(await transitionJob(db, job.jobId, 'COMPLETED')).toEqual({ changed: true, status: 'COMPLETED' });
  expect(await transitionJob(db, job.jobId, 'PROCESSING')).toEqual({ changed: false, status: 'COMPLETED' });
  expect(await transitionJob(db, job.jobId, 'FAILED', 'late failure')).toEqual({ changed: false, status: 'COMPLETED' });
  const row = await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } });
  expect(row).toMatchObject({ status: 'COMPLETED', errorMessage: null });
  expect(await env.run(acts.beginJob, job.jobId)).toEqual({ proceed: false, status: 'COMPLETED' });
});

it('beginJob proceeds on PROCESSING (activity retry) and rejects an unknown job as non-retryable', async () => {
  const { job } = await newScrapWithJob('t2');
  expect(await env.run(acts.beginJob, job.jobId)).toEqual({ proceed: true, status: 'PROCESSING' });
  expect(await env.run(acts.beginJob, job.jobId)).toEqual({ proceed: true, status: 'PROCESSING' });
  await expect(env.run(acts.beginJob, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ type: 'JOB_NOT_FOUND', nonRetryable: true });
});

it('SAN-2: a second active job for the same target is refused by the partial unique index; a finished one frees it', async () => {
  const { scrap, job } = await newScrapWithJob('t3');
  const again = await enqueueIfNoneActive(db, { jobType: 'CARD_ANALYSIS', targetId: scrap.id, userId });
  expect(again).toMatchObject({ created: false, job: { jobId: job.jobId } });
  await expect(db.asyncJob.create({ data: { jobType: 'CARD_ANALYSIS', targetId: scrap.id, userId } })).rejects.toMatchObject({ code: 'P2002' });
  await transitionJob(db, job.jobId, 'FAILED', 'x');
  const next = await enqueueIfNoneActive(db, { jobType: 'CARD_ANALYSIS', targetId: scrap.id, userId });
  expect(next.created).toBe(true);
  expect(next.job.jobId).not.toBe(job.jobId);
});

it('SAN-4: startJobs starts a companion only while its row is PENDING (a re-run of the activity starts no second run)', async () => {
  const pending = await newScrapWithJob('companion-pending');
  const done = await newScrapWithJob('companion-done');
  const failed = await newScrapWithJob('companion-failed');
  await transitionJob(db, done.job.jobId, 'PROCESSING');
  await transitionJob(db, done.job.jobId, 'COMPLETED');
  await transitionJob(db, failed.job.jobId, 'FAILED', 'x');
  const jobs = [pending, done, failed].map(({ job }) => ({ jobId: job.jobId, jobType: job.jobType, targetId: job.targetId, userId: job.userId }));
  starter.start.mockClear();
  expect(await env.run(acts.startJobs, jobs)).toEqual(['started', 'already-running', 'already-running']);
  expect(starter.start.mock.calls).toEqual([[jobs[0]]]);
});

/**
 * A local analysis of `content` whose tag names are unique to the calling test (and whose tag list
 * repeats one tag, as a model may), so the tag ids and rows it checks are its own. Categories are a
 * fixed set: tests look up whether theirs exists before they store.
 */
function analysisWithOwnTags(content: string): CardAnalysis {
  const suffix = randomUUID().slice(0, 8);
  const base = analyzeScrapLocally({ content });
  const tags = base.tags.map((t) => `${t}-${suffix}`);
  return { ...base, tags: [...tags, tags[0]!] };
}

/** The category row `name` if an earlier card created it, and how many rows storing one must add. */
async function categoryBefore(name: string) {
  const row = await db.category.findUnique({ where: { name } });
  return { row, adds: row ? 0 : 1 };
}

/** What storeCard wrote for `scrapId`: the card, its category and tags (by name), with their ids. */
async function storedCard(scrapId: string) {
  const card = await db.knowledgeCard.findUniqueOrThrow({ where: { scrapId }, include: { category: true, tags: { include: { tag: true } } } });
  return {
    cardId: card.id, title: card.title, summary: card.summary, createdAt: card.createdAt,
    category: { id: card.category.id, name: card.category.name },
    tags: card.tags.map((t) => ({ id: t.tag.id, name: t.tag.name })).sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** Rows of the shared lookup tables, whole: a retry that renamed or duplicated one would add a row. */
const lookupCounts = async () => ({ categories: await db.category.count(), tags: await db.tag.count() });

const uniqueSorted = (names: string[]) => [...new Set(names)].sort((a, b) => a.localeCompare(b));

it('SAN-7: a retried storeCard (twice in a row, then concurrently) reuses its card, category and tags and completes the job once', async () => {
  const { scrap, job } = await newScrapWithJob(PG_INDEXES);
  const analysis = analysisWithOwnTags(PG_INDEXES);
  // Another card already created the category and one of the tags: find-or-create must find them.
  const existingCategory = await db.category.upsert({ where: { name: analysis.category }, create: { name: analysis.category }, update: {} });
  const existingTag = await db.tag.create({ data: { name: analysis.tags[0]! } });
  await transitionJob(db, job.jobId, 'PROCESSING');
  const args = { jobId: job.jobId, scrapId: scrap.id, userId, analysis };
  const before = await lookupCounts();

  const cardId = (await env.run(acts.storeCard, args)) as string;
  const first = await storedCard(scrap.id);
  expect(first.cardId).toBe(cardId);
  expect(first.category).toEqual({ id: existingCategory.id, name: analysis.category });
  expect(first.tags.map((t) => t.name)).toEqual(uniqueSorted(analysis.tags));
  expect(first.tags.find((t) => t.name === existingTag.name)?.id).toBe(existingTag.id);
  const created = await lookupCounts();
  expect(created).toEqual({ categories: before.categories, tags: before.tags + uniqueSorted(analysis.tags).length - 1 });
  const completed = await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } });
  expect(completed.status).toBe('COMPLETED');
  expect(completed.finishedAt).toBeInstanceOf(Date);

  // Sequential retry (the activity's answer was lost): same card, same category and tag ids.
  expect(await env.run(acts.storeCard, args)).toBe(cardId);
  expect(await storedCard(scrap.id)).toEqual(first);
  expect(await lookupCounts()).toEqual(created);
  expect(await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).toEqual(completed); // finishedAt unchanged

  // Concurrent retries (several attempts overlapping): still the same rows, nothing added.
  expect(await Promise.all([1, 2, 3].map(() => env.run(acts.storeCard, args)))).toEqual([cardId, cardId, cardId]);
  expect(await storedCard(scrap.id)).toEqual(first);
  expect(await lookupCounts()).toEqual(created);
  expect(await db.knowledgeCard.count({ where: { scrapId: scrap.id } })).toBe(1);
  expect(await db.knowledgeCardTag.count({ where: { cardId } })).toBe(first.tags.length);
  expect(await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).toEqual(completed);
});

it('SAN-7: concurrent first attempts of storeCard converge on one card, one category row and one row per tag', async () => {
  const { scrap, job } = await newScrapWithJob(`${PG_INDEXES} concurrent`);
  const analysis = analysisWithOwnTags(PG_INDEXES);
  await transitionJob(db, job.jobId, 'PROCESSING');
  const args = { jobId: job.jobId, scrapId: scrap.id, userId, analysis };
  const category = await categoryBefore(analysis.category);
  const before = await lookupCounts();

  const ids = await Promise.all([1, 2, 3].map(() => env.run(acts.storeCard, args)));
  const card = await storedCard(scrap.id);
  expect(ids).toEqual([card.cardId, card.cardId, card.cardId]);
  expect(card.category.name).toBe(analysis.category);
  if (category.row) expect(card.category.id).toBe(category.row.id);
  expect(card.tags.map((t) => t.name)).toEqual(uniqueSorted(analysis.tags));
  expect(await lookupCounts()).toEqual({ categories: before.categories + category.adds, tags: before.tags + card.tags.length });
  const completed = await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } });
  expect(completed.status).toBe('COMPLETED');

  expect(await env.run(acts.storeCard, args)).toBe(card.cardId);
  expect(await storedCard(scrap.id)).toEqual(card);
  expect(await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).toEqual(completed);
});

it('SAN-7: concurrent cards of different scraps sharing tags and a category all point at the same rows', async () => {
  const jobs = await Promise.all([PG_PARTIAL, `${PG_PARTIAL} 2`, `${PG_PARTIAL} 3`, `${PG_PARTIAL} 4`].map((c) => newScrapWithJob(c)));
  const analysis = analysisWithOwnTags(PG_PARTIAL);
  const category = await categoryBefore(analysis.category);
  const before = await lookupCounts();
  const cardIds = await Promise.all(jobs.map(async ({ scrap, job }) => {
    await transitionJob(db, job.jobId, 'PROCESSING');
    return env.run(acts.storeCard, { jobId: job.jobId, scrapId: scrap.id, userId, analysis });
  }));
  expect(new Set(cardIds).size).toBe(4);

  const cards = await Promise.all(jobs.map(({ scrap }) => storedCard(scrap.id)));
  expect(cards.map((c) => c.cardId)).toEqual(cardIds);
  const [one, ...others] = cards;
  expect(one!.category.name).toBe(analysis.category);
  if (category.row) expect(one!.category.id).toBe(category.row.id);
  expect(one!.tags.map((t) => t.name)).toEqual(uniqueSorted(analysis.tags));
  for (const c of others) {
    expect(c.category).toEqual(one!.category);
    expect(c.tags).toEqual(one!.tags);
  }
  expect(await lookupCounts()).toEqual({ categories: before.categories + category.adds, tags: before.tags + one!.tags.length });
  for (const { job } of jobs) expect((await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).status).toBe('COMPLETED');
});

it('SAN-7: twelve concurrent first cards of one category and new tags listed in different orders neither deadlock nor duplicate', async () => {
  const suffix = randomUUID().slice(0, 8);
  const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((n) => `${n}-${suffix}`);
  const jobs = await Promise.all(Array.from({ length: 12 }, (_, i) => newScrapWithJob(`${PG_INDEXES} order ${i} ${suffix}`)));
  const base = analyzeScrapLocally({ content: PG_INDEXES });
  const cardIds = await Promise.all(jobs.map(async ({ scrap, job }, i) => {
    await transitionJob(db, job.jobId, 'PROCESSING');
    // Each card's tags in another order (rotated, every other one reversed), three or more of the five.
    const rotated = [...names.slice(i % 5), ...names.slice(0, i % 5)].slice(0, 3 + (i % 3));
    const analysis: CardAnalysis = { ...base, category: 'Science', tags: i % 2 === 0 ? rotated : rotated.reverse() };
    return env.run(acts.storeCard, { jobId: job.jobId, scrapId: scrap.id, userId, analysis });
  }));
  expect(new Set(cardIds).size).toBe(12);
  expect(await db.category.count({ where: { name: 'Science' } })).toBe(1);
  expect(await db.tag.count({ where: { name: { in: names } } })).toBe(5);
  const cards = await Promise.all(jobs.map(({ scrap }) => storedCard(scrap.id)));
  expect(new Set(cards.map((c) => c.category.id)).size).toBe(1);
  expect(cards.map((c) => c.tags.length)).toEqual(jobs.map((_, i) => 3 + (i % 3)));
  for (const { job } of jobs) expect((await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).status).toBe('COMPLETED');
});

it('SAN-7: analyzeScrap returns the embedding as float32 base64 when asked (plain numbers otherwise); storeCard stores the same bytes from it as from the plain numbers', async () => {
  const ai = createAiActivities({ ai: createScrapsAi(createLocalAiProvider()), db });
  const [a, b] = await Promise.all([newScrapWithJob(`${PG_INDEXES} f32 a ${randomUUID()}`), newScrapWithJob(`${PG_INDEXES} f32 b ${randomUUID()}`)]);
  const answered = await env.run(ai.analyzeScrap, { scrapId: a.scrap.id, embedding: 'f32' as const });
  const result = answered as CardAnalysisResult;
  expect(result).not.toHaveProperty('embedding');
  // Asked without `embedding: 'f32'` (an older workflow), the plain numbers its storeCard expects.
  expect(await env.run(ai.analyzeScrap, { scrapId: a.scrap.id })).toMatchObject({ embedding: expect.any(Array) });
  const plain = analyzeScrapLocally({ content: a.scrap.content });
  expect(Array.from(analysisEmbedding(result))).toEqual(Array.from(Float32Array.from(plain.embedding)));
  expect(Buffer.from(result.embeddingF32, 'base64').byteLength).toBe(plain.embedding.length * 4);
  for (const { job } of [a, b]) await transitionJob(db, job.jobId, 'PROCESSING');
  await env.run(acts.storeCard, { jobId: a.job.jobId, scrapId: a.scrap.id, userId, analysis: result });
  await env.run(acts.storeCard, { jobId: b.job.jobId, scrapId: b.scrap.id, userId, analysis: plain });
  const [ea, eb] = await Promise.all([a, b].map(async ({ scrap }) => (await db.knowledgeCard.findUniqueOrThrow({ where: { scrapId: scrap.id } })).embedding));
  expect(Buffer.from(ea!).equals(Buffer.from(eb!))).toBe(true);
});
