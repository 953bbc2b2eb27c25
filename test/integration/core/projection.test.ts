import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import { createJobActivities } from '../../../src/activities/core/jobs';
import { createCardActivities } from '../../../src/activities/san/cards';
import { analyzeLocally } from '../../../src/ai/local';
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

it('storeCard retried any number of times stores one card, no duplicate tags or categories', async () => {
  const { scrap, job } = await newScrapWithJob(PG_INDEXES);
  await transitionJob(db, job.jobId, 'PROCESSING');
  const analysis = analyzeLocally({ content: PG_INDEXES });
  const args = { jobId: job.jobId, scrapId: scrap.id, userId, analysis: { ...analysis, tags: [...analysis.tags, analysis.tags[0]!] } };
  const ids = (await Promise.all([1, 2, 3].map(() => env.run(acts.storeCard, args)))) as string[];
  expect(new Set(ids).size).toBe(1);
  expect(await db.knowledgeCard.count({ where: { scrapId: scrap.id } })).toBe(1);
  expect(await db.knowledgeCardTag.count({ where: { cardId: ids[0] } })).toBe(new Set(analysis.tags).size);
  expect(await db.category.count({ where: { name: analysis.category } })).toBe(1);
  expect((await db.asyncJob.findUniqueOrThrow({ where: { jobId: job.jobId } })).status).toBe('COMPLETED');
});

it('concurrent cards sharing tags and a category do not collide', async () => {
  const jobs = await Promise.all([PG_PARTIAL, `${PG_PARTIAL} 2`, `${PG_PARTIAL} 3`, `${PG_PARTIAL} 4`].map((c) => newScrapWithJob(c)));
  const analysis = analyzeLocally({ content: PG_PARTIAL });
  await Promise.all(jobs.map(async ({ scrap, job }) => {
    await transitionJob(db, job.jobId, 'PROCESSING');
    return env.run(acts.storeCard, { jobId: job.jobId, scrapId: scrap.id, userId, analysis });
  }));
  for (const tag of analysis.tags) expect(await db.tag.count({ where: { name: tag } })).toBe(1);
  expect(await db.knowledgeCard.count({ where: { scrapId: { in: jobs.map((j) => j.scrap.id) } } })).toBe(4);
});
