/**
 * SAN-11 through the API on the real servers: POST /recall-quizzes → RECALL_QUIZ_GENERATION → the
 * stored quizzes and their properties; the generation's status follows its job, also on failure.
 */
import type { SourceCard } from '../../../src/ai/scraps/answers';
import { AiProviderError, type LocalAiProvider } from '../../../src/ai/types';
import { localProviderWith } from '../../support/ai-provider';
import { GIT_REBASE, HTTP_CACHING, TEMPORAL_RETRIES, TS_NARROWING } from '../../fixtures/learning-texts';
import { PG_INDEXES } from '../../fixtures/texts';
import { addCard, addDays, todayIn } from '../../support/learning';
import { startStack, waitForJob, type Stack } from '../../support/stack';

jest.setTimeout(120_000);

/** The local provider; quiz generation for a card titled like `failTitle` fails non-retryably. */
function switchableProvider(): LocalAiProvider & { failTitle: string | null } {
  const provider: LocalAiProvider & { failTitle: string | null } = Object.assign(
    localProviderWith('local-switchable', async (call) => {
      const input = call.input as { cards: SourceCard[] };
      if (call.op === 'generateQuizzes' && provider.failTitle && input.cards.some((c) => c.title === provider.failTitle)) {
        throw new AiProviderError('UNAUTHORIZED', 'provider answered 401: invalid API key', false);
      }
      return call.answer();
    }),
    { failTitle: null as string | null },
  );
  return provider;
}

const ai = switchableProvider();
let stack: Stack;
type User = Awaited<ReturnType<Stack['newUser']>>;
let alice: User;
let bob: User;
let dayCards: Awaited<ReturnType<typeof addCard>>[];
const DAY = '2026-04-02';

beforeAll(async () => {
  stack = await startStack({ ai });
  alice = await stack.newUser();
  bob = await stack.newUser();
  dayCards = await Promise.all(
    [TEMPORAL_RETRIES, HTTP_CACHING, GIT_REBASE, TS_NARROWING].map((t, i) => addCard(stack, alice, t, `${DAY}T0${i + 1}:00:00Z`)),
  );
});
afterAll(async () => stack?.stop());

function postQuiz(user: User, payload: object) {
  return stack.app.inject({ method: 'POST', url: '/recall-quizzes', headers: user.auth, payload });
}
function getGeneration(user: User, id: string) {
  return stack.app.inject({ method: 'GET', url: `/recall-quizzes/${id}`, headers: user.auth });
}

interface QuizBody { position: number; type: string; question: string; answer: string; explanation: string; sourceCardId: string }

describe('POST /recall-quizzes → RECALL_QUIZ_GENERATION', () => {
  let both: { generationId: string; jobId: string; targetId: string; quizTypes: string[] };

  beforeAll(async () => {
    const res = await postQuiz(alice, { targetDate: DAY });
    expect(res.statusCode).toBe(202);
    both = res.json();
    expect(res.headers.location).toBe(`/recall-quizzes/${both.generationId}`);
  });

  it('answers 202 with generationId, jobId and targetId = generationId; default types OX and SHORT_ANSWER', () => {
    expect(both.targetId).toBe(both.generationId);
    expect(both.quizTypes).toEqual(['OX', 'SHORT_ANSWER']);
  });

  it('completes job and generation; the quizzes obey SAN-11 (OX answers O/X, short answers absent from the question, own cards)', async () => {
    expect(await waitForJob(stack, both.jobId, alice.auth)).toMatchObject({ status: 'COMPLETED', jobType: 'RECALL_QUIZ_GENERATION', targetId: both.generationId });
    const res = await getGeneration(alice, both.generationId);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ generationId: both.generationId, targetDate: DAY, status: 'COMPLETED', summaryId: null, jobId: both.jobId, errorMessage: null });
    const quizzes: QuizBody[] = body.quizzes;
    expect(quizzes.length).toBeGreaterThan(0);
    expect(quizzes.map((q) => q.position)).toEqual(quizzes.map((_, i) => i));
    expect(new Set(quizzes.map((q) => q.type))).toEqual(new Set(['OX', 'SHORT_ANSWER']));
    const cardIds = dayCards.map((c) => c.cardId);
    for (const q of quizzes) {
      expect(cardIds).toContain(q.sourceCardId);
      expect(q.question.trim()).not.toBe('');
      expect(q.explanation.trim()).not.toBe('');
      if (q.type === 'OX') expect(['O', 'X']).toContain(q.answer);
      else expect(q.question.toLowerCase()).not.toContain(q.answer.toLowerCase());
    }
    expect(await stack.db.recallQuiz.count({ where: { generationId: both.generationId } })).toBe(quizzes.length);
  });

  it('quizTypes ["OX"] → only OX quizzes', async () => {
    const res = await postQuiz(alice, { targetDate: DAY, quizTypes: ['OX'] });
    expect(res.statusCode).toBe(202);
    const { generationId, jobId } = res.json();
    expect((await waitForJob(stack, jobId, alice.auth)).status).toBe('COMPLETED');
    const body = (await getGeneration(alice, generationId)).json();
    expect(body.quizTypes).toEqual(['OX']);
    expect(body.quizzes.length).toBeGreaterThan(0);
    for (const q of body.quizzes as QuizBody[]) expect(q.type).toBe('OX');
  });

  it('concurrent identical requests while one is active → one generation and one job, every answer naming it', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => postQuiz(alice, { targetDate: DAY, quizTypes: ['SHORT_ANSWER'] })));
    for (const a of answers) expect(a.statusCode).toBe(202);
    const ids = new Set(answers.map((a) => (a.json() as { generationId: string }).generationId));
    const jobs = new Set(answers.map((a) => (a.json() as { jobId: string }).jobId));
    expect(jobs.size).toBe(1);
    expect(ids.size).toBe(1);
    expect((await waitForJob(stack, [...jobs][0]!, alice.auth)).status).toBe('COMPLETED');
    // Once it finished, the same request is a new generation.
    const later = (await postQuiz(alice, { targetDate: DAY, quizTypes: ['SHORT_ANSWER'] })).json() as { generationId: string; jobId: string };
    expect(ids.has(later.generationId)).toBe(false);
    await waitForJob(stack, later.jobId, alice.auth);
  });

  it('GET /recall-quizzes?date= lists the generations of that date, newest first, with their status', async () => {
    await waitForJob(stack, both.jobId, alice.auth);
    const res = await stack.app.inject({ method: 'GET', url: `/recall-quizzes?date=${DAY}`, headers: alice.auth });
    expect(res.statusCode).toBe(200);
    const gens = res.json().generations as { generationId: string; targetDate: string; createdAt: string; quizCount: number; status: string }[];
    expect(gens.map((g) => g.generationId)).toContain(both.generationId);
    for (const g of gens) expect(g.targetDate).toBe(DAY);
    for (let i = 1; i < gens.length; i++) expect(gens[i - 1]!.createdAt >= gens[i]!.createdAt).toBe(true);
    const mine = gens.find((g) => g.generationId === both.generationId)!;
    expect(mine).toMatchObject({ status: 'COMPLETED' });
    expect(mine.quizCount).toBeGreaterThan(0);
    const none = await stack.app.inject({ method: 'GET', url: `/recall-quizzes?date=${addDays(DAY, 1)}`, headers: alice.auth });
    expect(none.json().generations).toEqual([]);
  });

  it("another user's generation is 404 and not listed", async () => {
    const res = await getGeneration(bob, both.generationId);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
    const list = await stack.app.inject({ method: 'GET', url: `/recall-quizzes?date=${DAY}`, headers: bob.auth });
    expect(list.json().generations).toEqual([]);
    expect((await getGeneration(alice, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await postQuiz(bob, { targetDate: DAY })).json().code).toBe('NO_CARDS_FOR_DATE');
  });
});

describe('refused requests write nothing', () => {
  it.each([
    ['a future date', 400, 'TARGET_DATE_IN_FUTURE', () => ({ targetDate: addDays(todayIn('UTC'), 2) })],
    ['a date without cards', 422, 'NO_CARDS_FOR_DATE', () => ({ targetDate: addDays(DAY, -1) })],
    ['an unknown quiz type', 400, 'VALIDATION_FAILED', () => ({ targetDate: DAY, quizTypes: ['ESSAY'] })],
    ['no quiz types', 400, 'VALIDATION_FAILED', () => ({ targetDate: DAY, quizTypes: [] })],
    ['a malformed date', 400, 'VALIDATION_FAILED', () => ({ targetDate: '2026-4-2' })],
  ])('%s → %i %s', async (_name, status, code, payload) => {
    const user = await stack.newUser();
    await addCard(stack, user, PG_INDEXES, `${DAY}T12:00:00Z`);
    const res = await postQuiz(user, payload());
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe(code);
    expect(await stack.db.recallQuizGeneration.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.asyncJob.count({ where: { userId: user.userId, jobType: 'RECALL_QUIZ_GENERATION' } })).toBe(0);
  });
});

describe('failure', () => {
  it('a non-retryable AI failure fails the job and the generation together, with the cause chain', async () => {
    const user = await stack.newUser();
    const card = await addCard(stack, user, `${PG_INDEXES}\n\nfailure probe`, `${DAY}T12:00:00Z`);
    ai.failTitle = card.title;
    try {
      const res = await postQuiz(user, { targetDate: DAY });
      const { generationId, jobId } = res.json();
      const job = await waitForJob(stack, jobId, user.auth);
      expect(job.status).toBe('FAILED');
      expect(job.errorMessage).toContain('ApplicationFailure[AI_UNAUTHORIZED]: provider answered 401');
      const body = (await getGeneration(user, generationId)).json();
      expect(body).toMatchObject({ status: 'FAILED', jobId, quizzes: [] });
      expect(body.errorMessage).toBe(job.errorMessage);
    } finally {
      ai.failTitle = null;
    }
  });
});
