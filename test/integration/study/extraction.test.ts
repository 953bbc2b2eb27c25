/**
 * ST-4 … ST-6 against the real Temporal dev server and PostgreSQL: the extraction workflow on the
 * family's own `study-cards` queue, each ST-4 code with its retry behaviour (attempts as the row
 * shows them), supersede with identity keeping, the poller workflow, and the explanation job
 * through the REST API. The AI is the study port over the local provider, scripted per question (a marker in the
 * question text says how its memo-card calls fail).
 */
import { WorkflowFailedError } from '@temporalio/client';
import { createLocalAiProvider } from '../../../src/ai/local';
import { createStudyAi, type StudyAi } from '../../../src/ai/study';
import { AiProviderError } from '../../../src/ai/types';
import { createStudyCardActivities } from '../../../src/activities/study/cards';
import { enqueueExtraction, pollSources } from '../../../src/services/study/enqueue';
import { writeExplanation } from '../../../src/services/study/questions';
import { startExtraction } from '../../../src/services/study/start';
import { beginAttempt, failCallAttempt } from '../../../src/services/study/jobs';
import { supersedeCards, type CardToStore } from '../../../src/services/study/supersede';
import { STUDY_CARDS_QUEUE, studyCardQueues } from '../../../src/domain/study/contracts';
import { pollUntil } from '../../support/poll';
import { addCard } from '../../support/learning';
import { startStack, waitForJob, type Stack } from '../../support/stack';

type Behaviour = 'ok' | 'parse_fail' | 'timeout' | 'crash' | 'outage' | 'bad_numbers' | 'none';

/** The local study port whose extractMemoCards follows the script `#script:a,b,…` in the question text (one step per call; the last repeats). */
function scriptedAi(): StudyAi & { extractCalls: Map<string, number> } {
  const local = createStudyAi(createLocalAiProvider());
  const extractCalls = new Map<string, number>();
  return {
    ...local,
    extractCalls,
    async extractMemoCards(input, signal) {
      const m = /#script:([a-z_,]+)/.exec(input.question);
      const steps = (m?.[1] ?? 'ok').split(',') as Behaviour[];
      const n = (extractCalls.get(input.question) ?? 0) + 1;
      extractCalls.set(input.question, n);
      const step = steps[Math.min(n, steps.length) - 1]!;
      switch (step) {
        case 'parse_fail': throw new AiProviderError('MALFORMED_OUTPUT', 'the answer is not a card batch', true);
        case 'timeout': throw new AiProviderError('TIMEOUT', 'the provider did not answer in time', true);
        case 'crash': throw new Error('an unexpected provider bug');
        case 'outage': throw new AiProviderError('UPSTREAM_UNAVAILABLE', 'provider answered 503', true, 10);
        case 'none': return { cards: [] };
        case 'bad_numbers':
          return {
            cards: [
              { kind: 'basic', cue: 'How many pages does a lookup touch?', answer: 'about 7 pages', evidence: [{ ref: 'explanation', quote: input.explanation.split('.')[0]! }] },
              { kind: 'basic', cue: 'How many rows?', answer: '42 rows', evidence: [{ ref: 'explanation', quote: input.explanation.split('.')[0]! }] },
            ],
          };
        default: return local.extractMemoCards(input, signal);
      }
    },
  };
}

const EXPLANATION_V1 = [
  'A partial index is an index built over a subset of the rows of a table.',
  'It stores only the rows that match its WHERE clause, so it stays small.',
  'A B-tree lookup touches about 3 pages for a table of 1,000,000 rows.',
].join(' ');
const EXPLANATION_V2 = [
  'A partial index is an index built over a subset of the rows of a table.',
  'A covering index is an index that holds every column a query reads.',
  'An index-only scan reads 0 heap pages when the visibility map is set.',
].join(' ');

let stack: Stack;
let ai: ReturnType<typeof scriptedAi>;
let stopCardsWorker: () => Promise<void>;
let user: Awaited<ReturnType<Stack['newUser']>>;

beforeAll(async () => {
  stack = await startStack({ aiRunsWorker: false, env: { ST_EXTRACT_RETRY_DELAY_MS: '0' } });
  ai = scriptedAi();
  stopCardsWorker = await stack.startOwnQueueWorker(STUDY_CARDS_QUEUE, createStudyCardActivities({ db: stack.db, config: stack.config, ai }));
  user = await stack.newUser();
}, 120_000);

afterAll(async () => {
  await stopCardsWorker?.();
  await stack?.stop();
});

/**
 * A question with an explanation written directly (a ready source version), of a user of its own:
 * cards are deduplicated against the user's live cards, so tests never share a user's cards.
 */
async function explained(question: string, explanation = EXPLANATION_V1): Promise<{ id: string; version: Date; owner: Awaited<ReturnType<Stack['newUser']>> }> {
  const owner = await stack.newUser();
  const topic = await stack.db.studyTopic.create({ data: { userId: owner.userId, name: 'Indexes' } });
  const q = await stack.db.studyQuestion.create({ data: { userId: owner.userId, topicId: topic.id, question } });
  const version = await writeExplanation(stack.db, q.id, explanation, 'ai');
  return { id: q.id, version: version!, owner };
}

/** Enqueues and starts the extraction of `version` of question `id`; waits for its workflow to close and returns the row. */
async function extract(id: string, version: Date) {
  const { userId } = await stack.db.studyQuestion.findUniqueOrThrow({ where: { id }, select: { userId: true } });
  const r = await enqueueExtraction(stack.db, { userId, sourceKind: 'study_question', sourceId: id, sourceVersion: version });
  if (r.status !== 'enqueued') throw new Error(`not enqueued: ${JSON.stringify(r)}`);
  await startExtraction(stack.client, stack.config, r.job);
  const outcome = await stack.client.workflow.getHandle(r.job.workflowId).result().then(() => 'completed', (err: unknown) => err);
  const row = await stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: r.job.jobId } });
  return { row, outcome, workflowId: r.job.workflowId };
}

const liveCards = (id: string) => stack.db.studyMemoCard.findMany({ where: { sourceId: id, deletedAt: null }, include: { evidence: true }, orderBy: { createdAt: 'asc' } });

describe('ST-4 error codes and attempts', () => {
  test('a clean extraction completes at attempt 1 with cards and their evidence', async () => {
    const q = await explained('What is a partial index? #script:ok');
    const { row, outcome } = await extract(q.id, q.version);
    expect(outcome).toBe('completed');
    expect(row).toMatchObject({ status: 'completed', attempts: 1, errorCode: null });
    expect(row.startedAt).not.toBeNull();
    expect(row.completedAt).not.toBeNull();
    const cards = await liveCards(q.id);
    expect(cards.length).toBeGreaterThan(0);
    for (const c of cards) {
      expect(c.evidence.length).toBeGreaterThan(0);
      for (const e of c.evidence) expect(EXPLANATION_V1).toContain(e.quote.replace(/\s+$/, ''));
    }
    expect((row.payload as { result: { added: number } }).result.added).toBe(cards.length);
  });

  test('parse_fail is retried: a failed first attempt, then completed at attempt 2 (the error of attempt 1 kept)', async () => {
    const q = await explained('What is a partial index? #script:parse_fail,ok');
    const { row } = await extract(q.id, q.version);
    expect(row).toMatchObject({ status: 'completed', attempts: 2, errorCode: null });
    expect((row.payload as { attemptErrors: Record<string, { code: string }> }).attemptErrors).toEqual({ 1: expect.objectContaining({ code: 'parse_fail' }) });
    expect((await liveCards(q.id)).length).toBeGreaterThan(0);
  });

  test('parse_fail on every attempt: failed after max_attempts (2) real attempts, the workflow failed too', async () => {
    const q = await explained('What is a partial index? #script:parse_fail');
    const { row, outcome } = await extract(q.id, q.version);
    expect(row).toMatchObject({ status: 'failed', attempts: 2, maxAttempts: 2, errorCode: 'parse_fail' });
    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    expect(ai.extractCalls.get('What is a partial index? #script:parse_fail')).toBe(2);
    expect(await liveCards(q.id)).toEqual([]);
  });

  test('llm_timeout is retried, then failed with the code', async () => {
    const q = await explained('What is a partial index? #script:timeout');
    const { row } = await extract(q.id, q.version);
    expect(row).toMatchObject({ status: 'failed', attempts: 2, errorCode: 'llm_timeout' });
  });

  test('unknown (an unexpected error) is retried and may then complete', async () => {
    const q = await explained('What is a partial index? #script:crash,ok');
    const { row } = await extract(q.id, q.version);
    expect(row).toMatchObject({ status: 'completed', attempts: 2, errorCode: null });
    expect((row.payload as { attemptErrors: Record<string, { code: string }> }).attemptErrors['1']).toMatchObject({ code: 'unknown' });
  });

  test('a provider outage is waited out and not charged: completed at attempt 1', async () => {
    const q = await explained('What is a partial index? #script:outage,ok');
    const { row } = await extract(q.id, q.version);
    expect(row).toMatchObject({ status: 'completed', attempts: 1, errorCode: null });
    expect(ai.extractCalls.get('What is a partial index? #script:outage,ok')).toBe(2);
  });

  test('all_dropped: completed with zero cards at attempt 1, the question flagged needs_review, and the version never re-extracted', async () => {
    const q = await explained('How big is a lookup? #script:bad_numbers');
    const { row, outcome } = await extract(q.id, q.version);
    expect(outcome).toBe('completed');
    expect(row).toMatchObject({ status: 'completed', attempts: 1, errorCode: 'all_dropped' });
    expect((row.payload as { result: { dropped: Record<string, number> } }).result.dropped).toEqual({ number_not_in_evidence: 2 });
    expect(await liveCards(q.id)).toEqual([]);
    const question = await stack.db.studyQuestion.findUniqueOrThrow({ where: { id: q.id } });
    expect(question).toMatchObject({ needsReview: true, needsReviewReason: expect.stringContaining('all_dropped') });
    expect(question.needsReviewAt).not.toBeNull();
    expect((await pollSources(stack.db, { limit: 1000, sourceKinds: ['study_question'], maxAttempts: 2 })).some((j) => j.sourceId === q.id)).toBe(false);
  });

  test('no_ready_explanation: a job whose version was replaced is skipped at once, never retried, the AI never called', async () => {
    const question = 'What is a partial index? #script:ok #replaced';
    const q = await explained(question);
    await writeExplanation(stack.db, q.id, EXPLANATION_V2, 'manual');
    const { row, outcome } = await extract(q.id, q.version);
    expect(outcome).toBe('completed');
    expect(row).toMatchObject({ status: 'skipped', attempts: 1, errorCode: 'no_ready_explanation' });
    expect(ai.extractCalls.get(question)).toBeUndefined();
  });
});

describe('ST-4 a failed call of the one-activity attempt', () => {
  test('recorded whether or not its begin committed: each failure charges its attempt, the last closes the job failed, a repeat changes nothing', async () => {
    const q = await explained('What is a heap page? #failed-call');
    const { userId } = await stack.db.studyQuestion.findUniqueOrThrow({ where: { id: q.id }, select: { userId: true } });
    const r = await enqueueExtraction(stack.db, { userId, sourceKind: 'study_question', sourceId: q.id, sourceVersion: q.version });
    if (r.status !== 'enqueued') throw new Error(`not enqueued: ${JSON.stringify(r)}`);
    const jobId = r.job.jobId;
    // Attempt 1 died before its begin: the row is still pending at 0.
    expect(await failCallAttempt(stack.db, { jobId, attempt: 1, code: 'unknown', message: 'connection lost' })).toEqual({ status: 'processing', attempts: 1, maxAttempts: 2, errorCode: 'unknown' });
    expect(await beginAttempt(stack.db, jobId, 2)).toMatchObject({ proceed: true, attempts: 2 });
    expect(await failCallAttempt(stack.db, { jobId, attempt: 2, code: 'parse_fail', message: 'not a card batch' })).toEqual({ status: 'failed', attempts: 2, maxAttempts: 2, errorCode: 'parse_fail' });
    expect(await failCallAttempt(stack.db, { jobId, attempt: 2, code: 'unknown', message: 'again' })).toEqual({ status: 'failed', attempts: 2, maxAttempts: 2, errorCode: 'parse_fail' });
    const row = await stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: jobId } });
    expect(row.startedAt).not.toBeNull();
    expect(row.completedAt).not.toBeNull();
    expect(Object.keys((row.payload as { attemptErrors: Record<string, unknown> }).attemptErrors).sort()).toEqual(['1', '2']);
  });
});

describe('ST-5 evidence relevant to its question', () => {
  const sponsorship = (pkg: string) =>
    `The maintainers of ${pkg} and thousands of other packages are working with Tidelift to deliver commercial support and maintenance for the open source dependencies you use to build your applications.`;
  const readme = (pkg: string, topic: string) => `# ${pkg}\n\n${topic}\n\n## ${pkg} for enterprise\n\nAvailable as part of the Tidelift Subscription.\n\n${sponsorship(pkg)}`;

  test('a card made of a boilerplate sentence recurring across the user\'s documents is dropped evidence_off_topic and counted; topical cards stay', async () => {
    const q = await explained(
      'What is @fastify/accept-negotiator and what is it for? #script:ok',
      `${sponsorship('domutils')} The accept-negotiator package is a negotiator for the HTTP accept headers of a request.`,
    );
    for (const [pkg, topic] of [
      ['domutils', 'Utilities for working with htmlparser2 DOM trees: find nodes, read attributes, walk siblings.'],
      ['entities', 'Encode and decode HTML and XML entities quickly, with strict and legacy modes.'],
      ['css-what', 'A CSS selector parser that turns a selector string into an array of tokens.'],
      ['nth-check', 'Parses and compiles CSS nth-checks to highly optimized functions.'],
    ] as const) await addCard(stack, q.owner, readme(pkg, topic));

    const { row } = await extract(q.id, q.version);
    expect(row).toMatchObject({ status: 'completed', errorCode: null });
    expect((row.payload as { result: { dropped: Record<string, number> } }).result.dropped).toMatchObject({ evidence_off_topic: expect.any(Number) });
    const cards = await liveCards(q.id);
    expect(cards.length).toBeGreaterThan(0);
    for (const c of cards) for (const e of c.evidence) expect(e.quote).not.toContain('Tidelift');
  });
});

describe('ST-5 supersede', () => {
  test('a new version retires the old cards, appends the new ones, and keeps the identity and progress of an unchanged card', async () => {
    const q = await explained('What is a partial index? #script:ok #supersede');
    await extract(q.id, q.version);
    const v1 = await liveCards(q.id);
    const definition = v1.find((c) => c.cue === 'What is a partial index?');
    expect(definition).toBeDefined();
    await stack.db.studyMemoCardProgress.update({ where: { cardId: definition!.id }, data: { reps: 3, state: 2, stability: 4.5 } });

    const v2version = await writeExplanation(stack.db, q.id, EXPLANATION_V2, 'manual');
    const { row } = await extract(q.id, v2version!);
    expect(row.status).toBe('completed');
    const v2 = await liveCards(q.id);
    const kept = v2.find((c) => c.id === definition!.id);
    expect(kept).toMatchObject({ cue: 'What is a partial index?', sourceVersion: v2version, deletedAt: null });
    expect(await stack.db.studyMemoCardProgress.findUniqueOrThrow({ where: { cardId: definition!.id } })).toMatchObject({ reps: 3, state: 2, stability: 4.5 });
    expect(v2.every((c) => c.sourceVersion.getTime() === v2version!.getTime())).toBe(true);

    const retired = await stack.db.studyMemoCard.findMany({ where: { sourceId: q.id, deletedAt: { not: null } } });
    expect(retired.length).toBe(v1.length - 1);
    for (const r of retired) expect(r).toMatchObject({ retiredByJobId: row.id, sourceVersion: q.version });
    const result = (row.payload as { result: { kept: number; retired: number; added: number } }).result;
    expect(result).toMatchObject({ kept: 1, retired: v1.length - 1, added: v2.length - 1 });

    // The read endpoint: live cards with evidence; include=retired adds the history.
    const live = await stack.app.inject({ method: 'GET', url: `/study/questions/${q.id}/memo-cards`, headers: q.owner.auth });
    expect(live.statusCode).toBe(200);
    expect((live.json() as { cards: unknown[] }).cards).toHaveLength(v2.length);
    const all = await stack.app.inject({ method: 'GET', url: `/study/questions/${q.id}/memo-cards?include=retired`, headers: q.owner.auth });
    expect((all.json() as { cards: { live: boolean }[] }).cards.filter((c) => !c.live)).toHaveLength(retired.length);
    const jobs = await stack.app.inject({ method: 'GET', url: `/study/questions/${q.id}/memo-card-jobs`, headers: q.owner.auth });
    expect((jobs.json() as { jobs: { status: string; attempts: number }[] }).jobs).toEqual([
      expect.objectContaining({ status: 'completed', attempts: 1, sourceVersion: v2version!.toISOString(), cards: { added: v2.length - 1, kept: 1, retired: v1.length - 1 } }),
      expect.objectContaining({ status: 'completed', attempts: 1, sourceVersion: q.version.toISOString() }),
    ]);
  });
});

describe('ST-5 the supersede write', () => {
  /** A job of version `version` of question `id`, begun at attempt 1 (as the workflow's begin leaves it). */
  async function begunJob(id: string, version: Date): Promise<string> {
    const { userId } = await stack.db.studyQuestion.findUniqueOrThrow({ where: { id }, select: { userId: true } });
    const r = await enqueueExtraction(stack.db, { userId, sourceKind: 'study_question', sourceId: id, sourceVersion: version });
    if (r.status !== 'enqueued') throw new Error(`not enqueued: ${JSON.stringify(r)}`);
    expect(await beginAttempt(stack.db, r.job.jobId, 1)).toMatchObject({ proceed: true, attempts: 1 });
    return r.job.jobId;
  }
  const card = (key: string, quotes: { ref: string; quote: string }[]): CardToStore => ({ kind: 'basic', cue: `cue ${key}`, answer: `answer ${key}`, clozeText: null, normalizedKey: key, evidence: quotes });

  test('a card whose key went live on another source is dropped duplicate_of_live; kept cards get this version\'s evidence; a repeat writes nothing', async () => {
    const q = await explained('What is a heap page?');
    const other = await stack.db.studyQuestion.create({ data: { userId: q.owner.userId, topicId: (await stack.db.studyQuestion.findUniqueOrThrow({ where: { id: q.id } })).topicId, question: 'Other' } });
    const job1 = await begunJob(q.id, q.version);
    // Live on the other question after the extraction's guards read the user's live keys.
    await stack.db.studyMemoCard.create({
      data: { userId: q.owner.userId, sourceKind: 'study_question', sourceId: other.id, sourceVersion: q.version, kind: 'basic', cue: 'c', answer: 'a', normalizedKey: 'dup', jobId: job1 },
    });
    const first = await supersedeCards(stack.db, {
      jobId: job1, attempt: 1, returned: 3, dropped: { answer_leak: 1 }, needsReview: null, contextRefs: [],
      cards: [card('dup', [{ ref: 'explanation', quote: 'q0' }]), card('a', [{ ref: 'explanation', quote: 'a0' }, { ref: `study_question:${other.id}`, quote: 'a1' }]), card('b', [{ ref: 'explanation', quote: 'b0' }])],
    });
    expect(first).toEqual({ status: 'completed', errorCode: null, added: 2, kept: 0, retired: 0, dropped: { answer_leak: 1, duplicate_of_live: 1 } });
    const v1 = await liveCards(q.id);
    expect(v1.map((c) => c.normalizedKey).sort()).toEqual(['a', 'b']);
    const a = v1.find((c) => c.normalizedKey === 'a')!;
    expect(a).toMatchObject({ userId: q.owner.userId, jobId: job1, sourceVersion: q.version, cue: 'cue a', answer: 'answer a', kind: 'basic' });
    expect([...a.evidence].sort((x, y) => x.ordinal - y.ordinal).map((e) => [e.ordinal, e.sourceKind, e.sourceId, e.quote])).toEqual([
      [0, 'study_question', q.id, 'a0'],
      [1, 'study_question', other.id, 'a1'],
    ]);
    expect(await stack.db.studyMemoCardProgress.count({ where: { cardId: { in: v1.map((c) => c.id) } } })).toBe(2);
    expect(await stack.db.studyMemoCard.count({ where: { normalizedKey: 'dup', userId: q.owner.userId } })).toBe(1);
    // A repeat of the committed write (a retried activity) returns the stored result and writes nothing.
    expect(await supersedeCards(stack.db, { jobId: job1, attempt: 1, returned: 3, dropped: {}, needsReview: null, contextRefs: [], cards: [card('c', [])] })).toEqual(first);
    expect((await liveCards(q.id)).length).toBe(2);

    const v2 = await writeExplanation(stack.db, q.id, EXPLANATION_V2, 'manual');
    const job2 = await begunJob(q.id, v2!);
    const second = await supersedeCards(stack.db, {
      jobId: job2, attempt: 1, returned: 2, dropped: {}, needsReview: null, contextRefs: [],
      cards: [card('a', [{ ref: 'explanation', quote: 'a-new' }]), card('c', [{ ref: 'explanation', quote: 'c0' }]), card('c', [{ ref: 'explanation', quote: 'c-again' }])],
    });
    expect(second).toEqual({ status: 'completed', errorCode: null, added: 1, kept: 1, retired: 1, dropped: {} });
    const live = await liveCards(q.id);
    expect(live.map((c) => c.normalizedKey).sort()).toEqual(['a', 'c']);
    const keptA = live.find((c) => c.normalizedKey === 'a')!;
    expect(keptA).toMatchObject({ id: a.id, sourceVersion: v2, jobId: job1 });
    expect(keptA.evidence.map((e) => [e.ordinal, e.quote])).toEqual([[0, 'a-new']]);
    expect(live.find((c) => c.normalizedKey === 'c')!.evidence.map((e) => e.quote)).toEqual(['c0']);
    expect(await stack.db.studyMemoCard.findFirstOrThrow({ where: { sourceId: q.id, normalizedKey: 'b' } })).toMatchObject({ retiredByJobId: job2, deletedAt: expect.any(Date) });
    expect(await stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: job2 } })).toMatchObject({ status: 'completed', errorCode: null });
  });

  test('a source replaced after the extraction read it: skipped no_ready_explanation, no card written', async () => {
    const q = await explained('What is a visibility map?');
    const job = await begunJob(q.id, q.version);
    await writeExplanation(stack.db, q.id, EXPLANATION_V2, 'manual');
    const r = await supersedeCards(stack.db, { jobId: job, attempt: 1, returned: 1, dropped: {}, needsReview: null, contextRefs: [], cards: [card('x', [{ ref: 'explanation', quote: 'x0' }])] });
    expect(r).toEqual({ status: 'skipped', errorCode: 'no_ready_explanation', added: 0, kept: 0, retired: 0, dropped: {} });
    expect(await liveCards(q.id)).toEqual([]);
    expect(await stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: job } })).toMatchObject({ status: 'skipped', errorMessage: expect.stringContaining('version') });
  });
});

describe('ST-3 the poller workflow and the API', () => {
  test('the explanation job, then two polls at once: each version gets one job and one workflow; a poll again starts nothing', async () => {
    const other = await stack.newUser();
    const topic = await stack.app.inject({ method: 'POST', url: '/study/topics', headers: other.auth, payload: { name: 'Indexes' } });
    expect(topic.statusCode).toBe(201);
    const { topicId } = topic.json() as { topicId: string };
    const created = await stack.app.inject({
      method: 'POST', url: `/study/topics/${topicId}/questions`, headers: other.auth,
      payload: { question: 'What is a partial index?', userAnswer: 'An index built over a subset of the rows of a table.' },
    });
    expect(created.statusCode).toBe(201);
    const { questionId, explanationJobId } = created.json() as { questionId: string; explanationJobId: string };
    expect(await waitForJob(stack, explanationJobId, other.auth)).toMatchObject({ status: 'COMPLETED', jobType: 'STUDY_EXPLANATION' });
    const read = await stack.app.inject({ method: 'GET', url: `/study/questions/${questionId}`, headers: other.auth });
    const question = read.json() as { explanation: string | null; explanationVersion: string | null; explanationOrigin: string };
    expect(question.explanation).toBeTruthy();
    expect(question).toMatchObject({ explanationOrigin: 'ai', explanationVersion: expect.any(String) });

    const queue = studyCardQueues(stack.config.temporal.taskQueuePrefix).studyCards;
    const poll = (n: number) => stack.client.workflow.execute('studyCardPollWorkflow', {
      taskQueue: queue, workflowId: `test-poll-${n}-${questionId}`, args: [{ limit: 1000, sourceKinds: ['study_question'], restartGraceSeconds: 3600 }],
    });
    await Promise.all([poll(1), poll(2)]);
    const jobs = await stack.db.studyMemoCardJob.findMany({ where: { sourceId: questionId } });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.sourceVersion.toISOString()).toBe(question.explanationVersion);
    const done = await pollUntil(
      () => stack.db.studyMemoCardJob.findUniqueOrThrow({ where: { id: jobs[0]!.id } }),
      (j) => j.status !== 'pending' && j.status !== 'processing',
      { describe: 'the polled extraction to finish', timeoutMs: 60_000 },
    );
    expect(done).toMatchObject({ status: 'completed', attempts: 1 });
    await poll(3);
    expect(await stack.db.studyMemoCardJob.count({ where: { sourceId: questionId } })).toBe(1);

    // The API's explicit enqueue reports the version as taken; a replaced explanation is a new version.
    const again = await stack.app.inject({ method: 'POST', url: '/study/memo-card-jobs', headers: other.auth, payload: { sourceKind: 'study_question', sourceId: questionId } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ status: 'skipped', reason: 'version_exists', jobId: jobs[0]!.id });
    const put = await stack.app.inject({ method: 'PUT', url: `/study/questions/${questionId}/explanation`, headers: other.auth, payload: { explanation: EXPLANATION_V2 } });
    expect(put.statusCode).toBe(200);
    expect((put.json() as { explanationOrigin: string; explanationVersion: string }).explanationVersion > question.explanationVersion!).toBe(true);
    const fresh = await stack.app.inject({ method: 'POST', url: '/study/memo-card-jobs', headers: other.auth, payload: { sourceKind: 'study_question', sourceId: questionId } });
    expect(fresh.statusCode).toBe(202);
    const cards = await stack.app.inject({ method: 'GET', url: `/study/topics/${topicId}/memo-cards`, headers: other.auth });
    expect(cards.statusCode).toBe(200);

    // Another user's question does not exist for you.
    const foreign = await stack.app.inject({ method: 'GET', url: `/study/questions/${questionId}/memo-cards`, headers: user.auth });
    expect(foreign.statusCode).toBe(404);
  });

  test('bad input answers problem+json 4xx', async () => {
    const bad = await stack.app.inject({ method: 'POST', url: '/study/topics', headers: user.auth, payload: { name: '   ' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
    const missing = await stack.app.inject({ method: 'PUT', url: '/study/topics/00000000-0000-4000-8000-000000000000/focus', headers: user.auth, payload: { focused: true } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'STUDY_TOPIC_NOT_FOUND' });
    const topic = await stack.db.studyTopic.create({ data: { userId: user.userId, name: 'Empty' } });
    const q = await stack.db.studyQuestion.create({ data: { userId: user.userId, topicId: topic.id, question: 'Not explained yet?' } });
    const early = await stack.app.inject({ method: 'POST', url: '/study/memo-card-jobs', headers: user.auth, payload: { sourceKind: 'study_question', sourceId: q.id } });
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'STUDY_EXPLANATION_NOT_READY' });
  });
});
