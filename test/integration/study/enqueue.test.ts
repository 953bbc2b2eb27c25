/**
 * ST-1 … ST-3 on the real PostgreSQL: the double idempotency of the memo-card extraction queue.
 * Each test gets its own database (a clone of the migrated template), so the poller sees only what
 * the test wrote and no test depends on another.
 */
import type { PrismaClient } from '@prisma/client';
import { createPrisma } from '../../../src/db/client';
import { enqueueExtraction, pollSources, stalePendingJobs } from '../../../src/services/study/enqueue';
import { writeExplanation } from '../../../src/services/study/questions';
import { studyCardExtractWorkflowId } from '../../../src/domain/study/contracts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres';

let database: TestDatabase;
let db: PrismaClient;

beforeEach(async () => {
  database = await createTestDatabase(process.env.TEST_PG_ADMIN_URL!);
  db = createPrisma(database.url, { poolMax: 24 });
});

afterEach(async () => {
  await db.$disconnect();
  await database.drop();
});

const USER = '10000000-0000-4000-8000-00000000a001';
const POLL = { limit: 50, sourceKinds: ['study_question', 'knowledge_card'] as const, maxAttempts: 2 };

/** A topic with `n` questions, each with an explanation (a ready source version). */
async function explainedQuestions(n: number, opts: { focused?: boolean; userId?: string } = {}): Promise<{ topicId: string; ids: string[] }> {
  const userId = opts.userId ?? USER;
  const topic = await db.studyTopic.create({ data: { userId, name: `topic ${Math.random()}`, focusedAt: opts.focused ? new Date() : null } });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const q = await db.studyQuestion.create({ data: { userId, topicId: topic.id, question: `Question ${i}?` } });
    await writeExplanation(db, q.id, `Explanation ${i}: a partial index covers some rows.`, 'ai');
    ids.push(q.id);
  }
  return { topicId: topic.id, ids };
}

async function versionOf(id: string): Promise<Date> {
  const q = await db.studyQuestion.findUniqueOrThrow({ where: { id } });
  return q.aiExplanationGeneratedAt!;
}

describe('ST-2 one active job per source', () => {
  test('20 concurrent enqueues of 20 versions of one source make exactly one active job; the others report skipped already_active', async () => {
    const { ids } = await explainedQuestions(1);
    const id = ids[0]!;
    const base = Date.parse('2026-12-01T10:00:00.000Z');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        enqueueExtraction(db, { userId: USER, sourceKind: 'study_question', sourceId: id, sourceVersion: new Date(base + i) }),
      ),
    );
    const enqueued = results.filter((r) => r.status === 'enqueued');
    expect(enqueued).toHaveLength(1);
    const skipped = results.filter((r) => r.status === 'skipped');
    expect(skipped).toHaveLength(19);
    for (const s of skipped) expect(s).toMatchObject({ status: 'skipped', reason: 'already_active' });
    const rows = await db.studyMemoCardJob.findMany({ where: { sourceId: id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0, maxAttempts: 2, kind: 'card_extract' });
  });

  test('20 concurrent enqueues of the same version make one job; the others report version_exists, and a closed job frees the source', async () => {
    const { ids } = await explainedQuestions(1);
    const id = ids[0]!;
    const version = await versionOf(id);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => enqueueExtraction(db, { userId: USER, sourceKind: 'study_question', sourceId: id, sourceVersion: version })),
    );
    expect(results.filter((r) => r.status === 'enqueued')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'skipped' && r.reason === 'version_exists')).toHaveLength(19);
    const job = (results.find((r) => r.status === 'enqueued') as { job: { jobId: string; workflowId: string } }).job;
    expect(job.workflowId).toBe(studyCardExtractWorkflowId('study_question', id, version));
    expect(job.workflowId).toBe(`study-card-extract:study_question:${id}:${version.toISOString()}`);

    // The version stays taken after its job closed (ST-3); another version of the source is free again (ST-2).
    await db.studyMemoCardJob.update({ where: { id: job.jobId }, data: { status: 'completed', completedAt: new Date() } });
    expect(await enqueueExtraction(db, { userId: USER, sourceKind: 'study_question', sourceId: id, sourceVersion: version })).toMatchObject({
      status: 'skipped', reason: 'version_exists', jobId: job.jobId,
    });
    const next = await enqueueExtraction(db, { userId: USER, sourceKind: 'study_question', sourceId: id, sourceVersion: new Date(version.getTime() + 1) });
    expect(next.status).toBe('enqueued');
  });

  test('the database itself refuses a second active job (the partial unique index), whatever the version', async () => {
    const { ids } = await explainedQuestions(1);
    const id = ids[0]!;
    const insert = (version: string, status: string) => db.$executeRawUnsafe(
      `INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, status, workflow_id)
       VALUES (gen_random_uuid(), $1::uuid, 'study_question', $2::uuid, $3::timestamptz, $4::"StudyMemoCardJobStatus", 'x')`,
      USER, id, version, status,
    );
    await insert('2026-12-01T10:00:00Z', 'processing');
    await expect(insert('2026-12-01T10:00:01Z', 'pending')).rejects.toThrow(/study_memo_card_jobs_one_active_per_source|unique/);
    await insert('2026-12-01T10:00:02Z', 'completed');
    await insert('2026-12-01T10:00:03Z', 'failed');
    expect(await db.studyMemoCardJob.count({ where: { sourceId: id } })).toBe(3);
  });
});

describe('ST-3 the poller: version idempotency and the per-poll limit', () => {
  test('a poll enqueues every ready version once; a second poll enqueues nothing; a new version enqueues once', async () => {
    const { ids } = await explainedQuestions(4);
    const unexplained = await db.studyQuestion.create({ data: { userId: USER, topicId: (await db.studyTopic.findFirstOrThrow()).id, question: 'No explanation yet?' } });
    const first = await pollSources(db, POLL);
    expect(first.map((j) => j.sourceId).sort()).toEqual([...ids].sort());
    expect(first.some((j) => j.sourceId === unexplained.id)).toBe(false);
    expect(await pollSources(db, POLL)).toEqual([]);

    // Close the first jobs; a new explanation of one question is a new version: enqueued exactly once.
    await db.studyMemoCardJob.updateMany({ data: { status: 'completed', completedAt: new Date() } });
    expect(await pollSources(db, POLL)).toEqual([]);
    const v2 = await writeExplanation(db, ids[2]!, 'A new explanation.', 'manual');
    const again = await pollSources(db, POLL);
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ sourceId: ids[2], sourceVersion: v2 });
    expect(await pollSources(db, POLL)).toEqual([]);
    expect(await db.studyMemoCardJob.count({ where: { sourceId: ids[2] } })).toBe(2);
  });

  test('a new version of a source whose job is still active waits for the next poll (ST-2), then enqueues once', async () => {
    const { ids } = await explainedQuestions(1);
    const [job] = await pollSources(db, POLL);
    await db.studyMemoCardJob.update({ where: { id: job!.jobId }, data: { status: 'processing', attempts: 1 } });
    await writeExplanation(db, ids[0]!, 'Replaced while the first extraction runs.', 'manual');
    expect(await pollSources(db, POLL)).toEqual([]);
    await db.studyMemoCardJob.update({ where: { id: job!.jobId }, data: { status: 'completed', completedAt: new Date() } });
    expect(await pollSources(db, POLL)).toHaveLength(1);
    expect(await pollSources(db, POLL)).toHaveLength(0);
  });

  test('two pollers at once (and ten) never enqueue a version twice', async () => {
    await explainedQuestions(30);
    const polls = await Promise.all(Array.from({ length: 10 }, () => pollSources(db, POLL)));
    const all = polls.flat();
    expect(all).toHaveLength(30);
    expect(new Set(all.map((j) => j.sourceId)).size).toBe(30);
    const dup = await db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM (SELECT source_id, source_version FROM study_memo_card_jobs GROUP BY 1, 2 HAVING count(*) > 1) d`;
    expect(Number(dup[0]!.n)).toBe(0);
  });

  test('at most `limit` jobs per poll: topics in focus first (latest focus first), then the oldest versions', async () => {
    const older = await explainedQuestions(5);
    const focused = await explainedQuestions(3, { focused: true });
    const first = await pollSources(db, { ...POLL, limit: 4 });
    expect(first).toHaveLength(4);
    // The three of the topic in focus, then the oldest of the others.
    expect(first.slice(0, 3).map((j) => j.sourceId).sort()).toEqual([...focused.ids].sort());
    expect(first[3]!.sourceId).toBe(older.ids[0]);
    const second = await pollSources(db, { ...POLL, limit: 4 });
    expect(second.map((j) => j.sourceId)).toEqual(older.ids.slice(1, 5));
    expect(await pollSources(db, { ...POLL, limit: 4 })).toEqual([]);
  });

  test('a second source kind: knowledge cards of the scrap family are polled with their creation as the version', async () => {
    const scrap = await db.scrap.create({ data: { userId: USER, content: 'Partial indexes store some rows.', contentHash: 'a'.repeat(64) } });
    const category = await db.category.create({ data: { name: 'Data' } });
    const card = await db.knowledgeCard.create({
      data: { userId: USER, scrapId: scrap.id, categoryId: category.id, title: 'Partial indexes', summary: 'Some rows.', embedding: new Uint8Array(6144) },
    });
    const jobs = await pollSources(db, { ...POLL, sourceKinds: ['knowledge_card'] });
    expect(jobs).toEqual([expect.objectContaining({ sourceKind: 'knowledge_card', sourceId: card.id, sourceVersion: card.createdAt })]);
    expect(await pollSources(db, { ...POLL, sourceKinds: ['study_question'] })).toEqual([]);
    expect(await pollSources(db, POLL)).toEqual([]);
  });

  test('pending jobs past the grace period are listed for a restart; fresh ones are not', async () => {
    await explainedQuestions(2);
    const jobs = await pollSources(db, POLL);
    expect(await stalePendingJobs(db, 60, 10)).toEqual([]);
    await db.studyMemoCardJob.update({ where: { id: jobs[0]!.jobId }, data: { createdAt: new Date(Date.now() - 120_000) } });
    expect((await stalePendingJobs(db, 60, 10)).map((j) => j.jobId)).toEqual([jobs[0]!.jobId]);
  });
});

describe('source versions', () => {
  test('each new explanation stamps a strictly later version, even within one millisecond', async () => {
    const { ids } = await explainedQuestions(1);
    const versions: number[] = [];
    for (let i = 0; i < 5; i++) versions.push((await writeExplanation(db, ids[0]!, `v${i}`, 'manual'))!.getTime());
    for (let i = 1; i < versions.length; i++) expect(versions[i]!).toBeGreaterThan(versions[i - 1]!);
  });
});
