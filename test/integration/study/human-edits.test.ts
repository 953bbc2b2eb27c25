/**
 * A person's write against a job's result, on the real PostgreSQL and Temporal: an explanation
 * replaced by hand (`PUT /study/questions/{id}/explanation`) while the STUDY_EXPLANATION job's AI
 * call is in flight, and while a memo-card extraction of the previous explanation is in flight.
 * The person's write wins; the job ends with a clear status (COMPLETED `resultCode: SUPERSEDED`,
 * or skipped `no_ready_explanation`) and changes nothing. The AI calls are held by a hook that makes
 * the person's write first, so the interleaving is certain.
 */
import { createStudyCardActivities } from '../../../src/activities/study/cards';
import { createLocalAiProvider } from '../../../src/ai/local';
import { createStudyAi, type StudyAi } from '../../../src/ai/study';
import { STUDY_CARDS_QUEUE } from '../../../src/domain/study/contracts';
import { enqueueExtraction } from '../../../src/services/study/enqueue';
import { writeExplanation } from '../../../src/services/study/questions';
import { startExtraction } from '../../../src/services/study/start';
import { localProviderWith } from '../../support/ai-provider';
import { startStack, waitForJob, type Stack } from '../../support/stack';

type User = Awaited<ReturnType<Stack['newUser']>>;

/** Writes made by "the person" while an AI call of a question (by its text) is held. */
const duringAi = new Map<string, () => Promise<void>>();

let stack: Stack;
let stopCardsWorker: () => Promise<void>;

beforeAll(async () => {
  const provider = localProviderWith('human-edits', async (call) => {
    const question = (call.input as { question?: string }).question;
    const edit = question === undefined ? undefined : duringAi.get(`${call.op}:${question}`);
    if (edit) await edit();
    return call.answer();
  });
  stack = await startStack({ aiRunsWorker: false, ai: provider, env: { ST_EXTRACT_RETRY_DELAY_MS: '0' } });
  const local = createStudyAi(createLocalAiProvider());
  const cardsAi: StudyAi = {
    ...local,
    async extractMemoCards(input, signal) {
      const edit = duringAi.get(`extractMemoCards:${input.question}`);
      if (edit) await edit();
      return local.extractMemoCards(input, signal);
    },
  };
  stopCardsWorker = await stack.startOwnQueueWorker(STUDY_CARDS_QUEUE, createStudyCardActivities({ db: stack.db, config: stack.config, ai: cardsAi }));
}, 120_000);

afterAll(async () => {
  await stopCardsWorker?.();
  await stack?.stop();
});

const MANUAL = 'A partial index is an index built over a subset of the rows of a table. It stores only the rows that match its WHERE clause.';
const MANUAL_V2 = 'A covering index is an index that holds every column a query reads. An index-only scan then never visits the table.';

async function topicOf(user: User): Promise<string> {
  const res = await stack.app.inject({ method: 'POST', url: '/study/topics', headers: user.auth, payload: { name: 'Indexes' } });
  expect(res.statusCode).toBe(201);
  return (res.json() as { topicId: string }).topicId;
}

function putExplanation(user: User, questionId: string, explanation: string) {
  return stack.app.inject({ method: 'PUT', url: `/study/questions/${questionId}/explanation`, headers: user.auth, payload: { explanation } });
}

const questionRow = (id: string) => stack.db.studyQuestion.findUniqueOrThrow({ where: { id } });

describe('STUDY_EXPLANATION against a hand-written explanation', () => {
  test('replaced by hand while the job runs: 200 manual, the job COMPLETED SUPERSEDED, the hand-written explanation kept', async () => {
    const user = await stack.newUser();
    const topicId = await topicOf(user);
    const question = 'What is a partial index? (replaced by hand during the AI call)';
    let put: { statusCode: number; body: { explanationOrigin: string; explanationVersion: string } } | undefined;
    duringAi.set(`explainStudyQuestion:${question}`, async () => {
      const row = await stack.db.studyQuestion.findFirstOrThrow({ where: { question, userId: user.userId } });
      const res = await putExplanation(user, row.id, MANUAL);
      put = { statusCode: res.statusCode, body: res.json() };
    });
    const created = await stack.app.inject({ method: 'POST', url: `/study/topics/${topicId}/questions`, headers: user.auth, payload: { question, explain: true } });
    expect(created.statusCode).toBe(201);
    const { questionId, explanationJobId } = created.json() as { questionId: string; explanationJobId: string };

    const job = await waitForJob(stack, explanationJobId, user.auth);
    expect(put).toMatchObject({ statusCode: 200, body: { explanationOrigin: 'manual' } });
    expect(job).toMatchObject({ status: 'COMPLETED', errorMessage: null, resultCode: 'SUPERSEDED' });
    const q = await questionRow(questionId);
    expect(q).toMatchObject({ aiExplanation: MANUAL, explanationOrigin: 'manual', explanationRevision: 1, embedding: null });
    expect(q.aiExplanationGeneratedAt?.toISOString()).toBe(put!.body.explanationVersion);
    const read = await stack.app.inject({ method: 'GET', url: `/study/questions/${questionId}`, headers: user.auth });
    expect(read.json()).toMatchObject({ explanation: MANUAL, explanationOrigin: 'manual', explanationVersion: put!.body.explanationVersion });
  });

  test('an explanation asked for after the hand-written one replaces it (the job started from it); untouched jobs say no result code', async () => {
    const user = await stack.newUser();
    const topicId = await topicOf(user);
    const created = await stack.app.inject({ method: 'POST', url: `/study/topics/${topicId}/questions`, headers: user.auth, payload: { question: 'What is a covering index?', explain: false } });
    const { questionId } = created.json() as { questionId: string };
    expect((await putExplanation(user, questionId, MANUAL_V2)).statusCode).toBe(200);

    const asked = await stack.app.inject({ method: 'POST', url: `/study/questions/${questionId}/explanation-jobs`, headers: user.auth });
    expect(asked.statusCode).toBe(202);
    const job = await waitForJob(stack, (asked.json() as { jobId: string }).jobId, user.auth);
    expect(job).toMatchObject({ status: 'COMPLETED', resultCode: null });
    const q = await questionRow(questionId);
    expect(q).toMatchObject({ explanationOrigin: 'ai', explanationRevision: 2 });
    expect(q.aiExplanation).not.toBe(MANUAL_V2);
  });
});

describe('memo-card extraction against a hand-written explanation', () => {
  /** A question of a new user with an explanation (version 1) and the live cards of its extraction. */
  async function extractedQuestion(question: string) {
    const user = await stack.newUser();
    const topic = await stack.db.studyTopic.create({ data: { userId: user.userId, name: 'Indexes' } });
    const q = await stack.db.studyQuestion.create({ data: { userId: user.userId, topicId: topic.id, question } });
    const version = (await writeExplanation(stack.db, q.id, MANUAL, 'ai'))!;
    return { user, id: q.id, version };
  }

  async function extract(sourceId: string, userId: string, version: Date) {
    const r = await enqueueExtraction(stack.db, { userId, sourceKind: 'study_question', sourceId, sourceVersion: version });
    if (r.status !== 'enqueued') throw new Error(`not enqueued: ${JSON.stringify(r)}`);
    await startExtraction(stack.client, stack.config, r.job);
    const result = await stack.client.workflow.getHandle(r.job.workflowId).result();
    return { result, row: await stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: r.job.jobId } }) };
  }

  const cardsOf = (sourceId: string) =>
    stack.db.studyMemoCard.findMany({ where: { sourceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { id: true, deletedAt: true, sourceVersion: true } });

  test('replaced by hand during the extraction of the previous explanation: skipped no_ready_explanation, no card written or retired', async () => {
    const question = 'What is a partial index? (replaced by hand during the extraction)';
    const q = await extractedQuestion(question);
    const first = await extract(q.id, q.user.userId, q.version);
    expect(first.row).toMatchObject({ status: 'completed', errorCode: null });
    const before = await cardsOf(q.id);
    expect(before.length).toBeGreaterThan(0);

    // Version 2, then its extraction; the person replaces it (version 3) while the AI extracts version 2.
    const v2 = (await writeExplanation(stack.db, q.id, MANUAL_V2, 'ai'))!;
    const flagBefore = await questionRow(q.id);
    let putStatus: number | undefined;
    duringAi.set(`extractMemoCards:${question}`, async () => {
      duringAi.delete(`extractMemoCards:${question}`);
      putStatus = (await putExplanation(q.user, q.id, `${MANUAL} It is also called a filtered index.`)).statusCode;
    });
    const second = await extract(q.id, q.user.userId, v2);

    expect(putStatus).toBe(200);
    expect(second.result).toMatchObject({ status: 'skipped', errorCode: 'no_ready_explanation', attempts: 1 });
    expect(second.row).toMatchObject({ status: 'skipped', errorCode: 'no_ready_explanation', attempts: 1 });
    expect((second.row.payload as { result?: unknown } | null)?.result).toBeUndefined();
    expect(second.row.errorMessage).toContain('is now version');
    expect(await cardsOf(q.id)).toEqual(before);
    const after = await questionRow(q.id);
    expect(after).toMatchObject({ explanationOrigin: 'manual', needsReview: flagBefore.needsReview, needsReviewReason: flagBefore.needsReviewReason });
  });
});
