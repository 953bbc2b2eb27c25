/**
 * SAN-9 / SAN-11 projection activities on the real PostgreSQL: retried or late calls write nothing
 * twice, and recall_quiz_generations.status moves with its job in the same transactions.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import { createTilActivities } from '../../../src/activities/scraps/til';
import type { TilResult } from '../../../src/ai/scraps/answers';
import { EMBEDDING_DIMENSIONS } from '../../../src/ai/types';
import type { Quiz } from '../../../src/domain/scraps/quizzes';
import { createUserWithToken } from '../../../src/auth/tokens';
import { createPrisma } from '../../../src/db/client';
import { enqueueIfNoneActive, transitionJob } from '../../../src/core/projection';
import type { StartableJob } from '../../../src/core/starter';
import { createTestDatabase } from '../../support/postgres';

let db: PrismaClient;
let drop: () => Promise<void>;
let userId: string;
const starter = { start: jest.fn(async () => 'started' as const) };
const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
let acts: ReturnType<typeof createTilActivities>;

const TIL: TilResult = {
  title: 'TIL',
  tilMarkdown: '# TIL',
  embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i === 0 ? 1 : 0)),
};
const CARD = '00000000-0000-4000-8000-0000000000c1';
const QUIZZES: Quiz[] = [
  { type: 'OX', question: 'q1', answer: 'O', explanation: 'e', sourceCardId: CARD },
  { type: 'SHORT_ANSWER', question: 'q2 ___', answer: 'a', explanation: 'e', sourceCardId: CARD },
];

beforeAll(async () => {
  const database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  drop = database.drop;
  db = createPrisma(database.url, { poolMax: 10 });
  userId = (await createUserWithToken(db, 'til-projection')).userId;
  acts = createTilActivities({ db, starter });
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

/** storeTil through the mock activity context (typed: `env.run` loses the return type). */
const storeTil = (args: Parameters<typeof acts.storeTil>[0]) => env.run(acts.storeTil, args) as Promise<StartableJob | null>;

let dateSeq = 0;
async function processingTilJob() {
  const summary = await db.dailySummary.create({ data: { userId, targetDate: new Date(Date.UTC(2026, 0, 1 + dateSeq++)) } });
  const { job } = await enqueueIfNoneActive(db, { jobType: 'TIL_GENERATION', targetId: summary.id, userId });
  await transitionJob(db, job.jobId, 'PROCESSING');
  return { summary, job };
}

it('storeTil twice (a retry after a lost answer): one TIL write, one automatic generation, the same quiz job', async () => {
  const { summary, job } = await processingTilJob();
  const args = { jobId: job.jobId, summaryId: summary.id, userId, til: TIL, sourceCardIds: [CARD] };
  const first = await storeTil(args);
  const second = await storeTil(args);
  expect(first).toMatchObject({ jobType: 'RECALL_QUIZ_GENERATION', userId });
  expect(second).toEqual(first);
  expect((await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).status).toBe('COMPLETED');
  const gens = await db.recallQuizGeneration.findMany({ where: { summaryId: summary.id } });
  expect(gens).toHaveLength(1);
  expect(gens[0]).toMatchObject({ status: 'PENDING', quizTypes: ['OX', 'SHORT_ANSWER'], targetDate: summary.targetDate });
  const stored = await db.dailySummary.findUniqueOrThrow({ where: { id: summary.id } });
  expect(stored).toMatchObject({ title: 'TIL', tilMarkdown: '# TIL', sourceCardIds: [CARD] });

  // Once the quiz job has started, a further retry has nothing left to start.
  await transitionJob(db, first!.jobId, 'PROCESSING');
  expect(await storeTil(args)).toBeNull();
});

it('concurrent storeTil calls for one job create one generation', async () => {
  const { summary, job } = await processingTilJob();
  const args = { jobId: job.jobId, summaryId: summary.id, userId, til: TIL, sourceCardIds: [CARD] };
  const results = await Promise.all(Array.from({ length: 5 }, () => storeTil(args)));
  expect(new Set(results.map((r) => r?.jobId)).size).toBe(1);
  expect(await db.recallQuizGeneration.count({ where: { summaryId: summary.id } })).toBe(1);
  expect(await db.asyncJob.count({ where: { jobType: 'RECALL_QUIZ_GENERATION', targetId: results[0]!.targetId } })).toBe(1);
});

it('storeTil on a job failed meanwhile writes nothing and is non-retryable', async () => {
  const { summary, job } = await processingTilJob();
  await transitionJob(db, job.jobId, 'FAILED', 'recovered as stale');
  await expect(env.run(acts.storeTil, { jobId: job.jobId, summaryId: summary.id, userId, til: TIL, sourceCardIds: [CARD] }))
    .rejects.toMatchObject({ type: 'JOB_NOT_ACTIVE', nonRetryable: true });
  expect((await db.dailySummary.findUniqueOrThrow({ where: { id: summary.id } })).title).toBeNull();
  expect(await db.recallQuizGeneration.count({ where: { summaryId: summary.id } })).toBe(0);
});

async function pendingQuizJob() {
  const gen = await db.recallQuizGeneration.create({ data: { userId, targetDate: new Date('2026-02-01T00:00:00Z'), quizTypes: ['OX', 'SHORT_ANSWER'] } });
  const { job } = await enqueueIfNoneActive(db, { jobType: 'RECALL_QUIZ_GENERATION', targetId: gen.id, userId });
  return { gen, job };
}

const genStatus = async (id: string) => (await db.recallQuizGeneration.findUniqueOrThrow({ where: { id } })).status;

it('the generation status follows its job: PROCESSING, then COMPLETED with quizzes stored once', async () => {
  const { gen, job } = await pendingQuizJob();
  expect(await env.run(acts.beginRecallQuizJob, { jobId: job.jobId, generationId: gen.id })).toEqual({ proceed: true, status: 'PROCESSING' });
  expect(await genStatus(gen.id)).toBe('PROCESSING');
  expect(await env.run(acts.beginRecallQuizJob, { jobId: job.jobId, generationId: gen.id })).toEqual({ proceed: true, status: 'PROCESSING' });
  expect(await env.run(acts.storeRecallQuizzes, { jobId: job.jobId, generationId: gen.id, quizzes: QUIZZES })).toBe(2);
  expect(await env.run(acts.storeRecallQuizzes, { jobId: job.jobId, generationId: gen.id, quizzes: QUIZZES })).toBe(2);
  expect(await genStatus(gen.id)).toBe('COMPLETED');
  const stored = await db.recallQuiz.findMany({ where: { generationId: gen.id }, orderBy: { position: 'asc' } });
  expect(stored.map((q) => [q.position, q.type, q.answer])).toEqual([[0, 'OX', 'O'], [1, 'SHORT_ANSWER', 'a']]);
  // A late duplicate start and a late failure change nothing.
  expect(await env.run(acts.beginRecallQuizJob, { jobId: job.jobId, generationId: gen.id })).toEqual({ proceed: false, status: 'COMPLETED' });
  expect(await env.run(acts.failRecallQuizJob, { jobId: job.jobId, generationId: gen.id, errorMessage: 'late' })).toBe('COMPLETED');
  expect(await genStatus(gen.id)).toBe('COMPLETED');
});

it('FAILED moves job and generation together; a completion arriving after that is refused', async () => {
  const { gen, job } = await pendingQuizJob();
  await env.run(acts.beginRecallQuizJob, { jobId: job.jobId, generationId: gen.id });
  expect(await env.run(acts.failRecallQuizJob, { jobId: job.jobId, generationId: gen.id, errorMessage: 'boom' })).toBe('FAILED');
  expect(await genStatus(gen.id)).toBe('FAILED');
  await expect(env.run(acts.storeRecallQuizzes, { jobId: job.jobId, generationId: gen.id, quizzes: QUIZZES }))
    .rejects.toMatchObject({ type: 'JOB_NOT_ACTIVE' });
  expect(await db.recallQuiz.count({ where: { generationId: gen.id } })).toBe(0);
  expect(await genStatus(gen.id)).toBe('FAILED');
});
