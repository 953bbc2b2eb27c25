/**
 * SAN-9 through the API on the real servers: POST /til branches, per-user serialisation under
 * concurrency, the completed TIL, recall cards, and the automatic recall quiz (SAN-11).
 */
import { EMBEDDING_DIMENSIONS } from '../../../src/ai/types';
import { encodeEmbedding } from '../../../src/db/vectors';
import { GIT_REBASE, HTTP_CACHING, TEMPORAL_RETRIES, TS_NARROWING } from '../../fixtures/learning-texts';
import { PG_INDEXES, PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { addCard, addDays, newUserInZone, todayIn } from '../../support/learning';
import { startStack, waitForJob, type Stack } from '../../support/stack';

jest.setTimeout(120_000);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

type User = Awaited<ReturnType<Stack['newUser']>>;

const DAY = '2026-03-14';
const at = (date: string, time: string) => `${date}T${time}Z`;

function postTil(user: User, targetDate: unknown) {
  return stack.app.inject({ method: 'POST', url: '/til', headers: user.auth, payload: { targetDate } });
}

function getTil(user: User, date: string) {
  return stack.app.inject({ method: 'GET', url: `/til?date=${date}`, headers: user.auth });
}

describe('POST /til: refused requests write nothing', () => {
  let user: User;
  beforeAll(async () => {
    user = await stack.newUser();
    await addCard(stack, user, PG_INDEXES, at(DAY, '10:00:00'));
  });

  it('a date after today in the user time zone → 400 TARGET_DATE_IN_FUTURE', async () => {
    const res = await postTil(user, addDays(todayIn('UTC'), 2));
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().code).toBe('TARGET_DATE_IN_FUTURE');
  });

  it('"today" is decided by users.time_zone: the date of UTC+14 is always future at UTC-12', async () => {
    const ahead = todayIn('Etc/GMT-14'); // POSIX sign: Etc/GMT-14 is UTC+14
    const behind = await newUserInZone(stack, 'Etc/GMT+12');
    const early = await newUserInZone(stack, 'Etc/GMT-14');
    expect((await postTil(behind, ahead)).json().code).toBe('TARGET_DATE_IN_FUTURE');
    expect((await postTil(early, ahead)).json().code).toBe('NO_CARDS_FOR_DATE'); // today there, just no cards
  });

  it('a date without knowledge cards → 422 NO_CARDS_FOR_DATE', async () => {
    const res = await postTil(user, addDays(DAY, -1));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 422, code: 'NO_CARDS_FOR_DATE' });
  });

  it('not a calendar date → 400 VALIDATION_FAILED', async () => {
    for (const bad of ['2026-02-30', '14/03/2026', 20260314, '']) {
      const res = await postTil(user, bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });

  it('none of the refusals created a summary or a job', async () => {
    expect(await stack.db.dailySummary.count({ where: { userId: user.userId } })).toBe(0);
    expect(await stack.db.asyncJob.count({ where: { userId: user.userId, jobType: 'TIL_GENERATION' } })).toBe(0);
  });

  it("the card's day is its created_at in the user time zone (Asia/Seoul, UTC+9)", async () => {
    const seoul = await newUserInZone(stack, 'Asia/Seoul');
    await addCard(stack, seoul, SOURDOUGH, at('2026-01-10', '20:00:00')); // 2026-01-11 05:00 in Seoul
    expect((await postTil(seoul, '2026-01-10')).json().code).toBe('NO_CARDS_FOR_DATE');
    const ok = await postTil(seoul, '2026-01-11');
    expect(ok.statusCode).toBe(202);
    expect((await waitForJob(stack, ok.json().jobId, seoul.auth)).status).toBe('COMPLETED');
  });
});

describe('POST /til → TIL_GENERATION → GET /til', () => {
  let user: User;
  let cards: Awaited<ReturnType<typeof addCard>>[];
  let other: Awaited<ReturnType<typeof addCard>>;
  let accepted: { summaryId: string; jobId: string; targetId: string; targetDate: string };

  beforeAll(async () => {
    user = await stack.newUser();
    [other, ...cards] = await Promise.all([
      addCard(stack, user, TS_NARROWING, at(addDays(DAY, 1), '00:00:00')), // next day
      addCard(stack, user, TEMPORAL_RETRIES, at(DAY, '00:00:00')), // first instant of the day
      addCard(stack, user, HTTP_CACHING, at(DAY, '12:30:00')),
      addCard(stack, user, GIT_REBASE, at(DAY, '23:59:59.999')), // last instant of the day
    ]);
    const res = await postTil(user, DAY);
    expect(res.statusCode).toBe(202);
    accepted = res.json();
    expect(res.headers.location).toBe(`/async-jobs/${accepted.jobId}`);
  });

  it('answers 202 with summaryId, jobId and targetId = summaryId', () => {
    expect(accepted.targetId).toBe(accepted.summaryId);
    expect(accepted.targetDate).toBe(DAY);
  });

  it("completes the job and stores the TIL of exactly that day's cards; the markdown names every card", async () => {
    const job = await waitForJob(stack, accepted.jobId, user.auth);
    expect(job).toMatchObject({ status: 'COMPLETED', errorMessage: null, jobType: 'TIL_GENERATION', targetId: accepted.summaryId });
    const res = await getTil(user, DAY);
    expect(res.statusCode).toBe(200);
    const til = res.json();
    expect(til).toMatchObject({ summaryId: accepted.summaryId, targetDate: DAY, status: 'COMPLETED', jobId: accepted.jobId, errorMessage: null });
    expect(til.title).toEqual(expect.any(String));
    expect(til.generatedAt).toEqual(expect.any(String));
    expect([...til.sourceCardIds].sort()).toEqual(cards.map((c) => c.cardId).sort());
    expect(til.sourceCardIds).not.toContain(other.cardId);
    for (const c of cards) expect(til.tilMarkdown).toContain(c.title);
    expect(til.tilMarkdown).not.toContain(other.title);
    const row = await stack.db.dailySummary.findUniqueOrThrow({ where: { id: accepted.summaryId } });
    expect(row.embedding?.byteLength).toBe(EMBEDDING_DIMENSIONS * 4);
  });

  it('enqueues one RECALL_QUIZ_GENERATION for the summary automatically, and it completes', async () => {
    await waitForJob(stack, accepted.jobId, user.auth);
    const gens = await stack.db.recallQuizGeneration.findMany({ where: { summaryId: accepted.summaryId } });
    expect(gens).toHaveLength(1);
    const gen = gens[0]!;
    const quizJob = await stack.db.asyncJob.findFirstOrThrow({ where: { targetId: gen.id, jobType: 'RECALL_QUIZ_GENERATION' } });
    expect(await waitForJob(stack, quizJob.jobId, user.auth)).toMatchObject({ status: 'COMPLETED' });
    const body = (await stack.app.inject({ method: 'GET', url: `/recall-quizzes/${gen.id}`, headers: user.auth })).json();
    expect(body).toMatchObject({ generationId: gen.id, targetDate: DAY, status: 'COMPLETED', summaryId: accepted.summaryId, jobId: quizJob.jobId });
    expect(body.quizTypes.sort()).toEqual(['OX', 'SHORT_ANSWER']);
    expect(body.quizzes.length).toBeGreaterThan(0);
    for (const q of body.quizzes) expect(cards.map((c) => c.cardId)).toContain(q.sourceCardId);
  });

  it('a second POST for the completed day regenerates the same summary; still one automatic quiz generation', async () => {
    await waitForJob(stack, accepted.jobId, user.auth);
    const again = await postTil(user, DAY);
    expect(again.statusCode).toBe(202);
    expect(again.json().summaryId).toBe(accepted.summaryId);
    expect(again.json().jobId).not.toBe(accepted.jobId);
    expect((await waitForJob(stack, again.json().jobId, user.auth)).status).toBe('COMPLETED');
    expect((await getTil(user, DAY)).json()).toMatchObject({ status: 'COMPLETED', jobId: again.json().jobId });
    expect(await stack.db.dailySummary.count({ where: { userId: user.userId } })).toBe(1);
    expect(await stack.db.recallQuizGeneration.count({ where: { summaryId: accepted.summaryId } })).toBe(1);
  });

  it('GET /til for a date without a summary → 404; a bad date → 400', async () => {
    expect((await getTil(user, addDays(DAY, 1))).statusCode).toBe(404);
    expect((await getTil(user, 'yesterday')).statusCode).toBe(400);
  });
});

describe('a day of emoji and astral-plane cards', () => {
  it('TIL_GENERATION completes and stores well-formed markdown naming every card', async () => {
    const user = await stack.newUser();
    const day = '2026-03-20';
    const cards = await Promise.all([
      addCard(stack, user, '😀'.repeat(61), at(day, '08:00:00')),
      addCard(stack, user, `a${'스케줄링 😀🚀 '.repeat(40)}`, at(day, '09:00:00')),
      addCard(stack, user, `# ${'𝒳'.repeat(70)}\n\n${'👩‍💻 writes code. '.repeat(30)}`, at(day, '10:00:00')),
    ]);
    const res = await postTil(user, day);
    expect(res.statusCode).toBe(202);
    expect(await waitForJob(stack, res.json().jobId, user.auth)).toMatchObject({ status: 'COMPLETED', errorMessage: null });
    const til = (await getTil(user, day)).json();
    expect(til.title.isWellFormed()).toBe(true);
    expect(til.tilMarkdown.isWellFormed()).toBe(true);
    for (const c of cards) expect(til.tilMarkdown).toContain(c.title);
  });
});

describe('one active TIL job per user (SAN-2, SAN-9)', () => {
  let user: User;
  beforeAll(async () => {
    user = await stack.newUser();
    await Promise.all([PG_INDEXES, SOURDOUGH].map((t, i) => addCard(stack, user, t, at(addDays(DAY, i), '09:00:00'))));
  });

  it('10 concurrent POST /til for the same day → one summary, one job; the other nine 409', async () => {
    await stack.stopAiWorker(); // keeps the first job active while the others arrive
    let winner: { summaryId: string; jobId: string } | undefined;
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, () => postTil(user, DAY)));
      const accepted = answers.filter((a) => a.statusCode === 202);
      const refused = answers.filter((a) => a.statusCode !== 202);
      expect(accepted).toHaveLength(1);
      winner = accepted[0]!.json();
      for (const r of refused) {
        expect(r.statusCode).toBe(409);
        expect(r.json().code).toBe('DUPLICATE_RESOURCE');
        expect(r.json().detail).toContain(winner!.jobId);
      }
      expect(await stack.db.dailySummary.count({ where: { userId: user.userId } })).toBe(1);
      expect(await stack.db.asyncJob.count({ where: { userId: user.userId, jobType: 'TIL_GENERATION' } })).toBe(1);

      // Another date of the same user is refused as well while that job is active.
      const otherDay = await postTil(user, addDays(DAY, 1));
      expect(otherDay.statusCode).toBe(409);
      expect(await stack.db.dailySummary.count({ where: { userId: user.userId } })).toBe(1);
      expect((await getTil(user, DAY)).json().status).toMatch(/^(PENDING|PROCESSING)$/);
    } finally {
      await stack.startAiWorker();
    }
    expect((await waitForJob(stack, winner!.jobId, user.auth)).status).toBe('COMPLETED');
    expect((await postTil(user, addDays(DAY, 1))).statusCode).toBe(202); // free again
  });

  it('10 concurrent POST /til of one user for five different days → exactly one accepted (the user lock)', async () => {
    const multi = await stack.newUser();
    const texts = [PG_INDEXES, SOURDOUGH, PG_PARTIAL, HTTP_CACHING, GIT_REBASE];
    await Promise.all(texts.map((t, i) => addCard(stack, multi, t, at(addDays(DAY, i), '09:00:00'))));
    await stack.stopAiWorker();
    let winner: { jobId: string } | undefined;
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => postTil(multi, addDays(DAY, i % 5))));
      expect(answers.map((a) => a.statusCode).sort()).toEqual([202, ...Array(9).fill(409)]);
      winner = answers.find((a) => a.statusCode === 202)!.json();
      expect(await stack.db.dailySummary.count({ where: { userId: multi.userId } })).toBe(1);
      expect(await stack.db.asyncJob.count({ where: { userId: multi.userId, jobType: 'TIL_GENERATION' } })).toBe(1);
    } finally {
      await stack.startAiWorker();
    }
    expect((await waitForJob(stack, winner!.jobId, multi.auth)).status).toBe('COMPLETED');
  });
});

describe('GET /til/{summaryId}/recall-cards', () => {
  let user: User;
  let today: Awaited<ReturnType<typeof addCard>>[];
  let earlier: Awaited<ReturnType<typeof addCard>>[];
  let summaryId: string;

  beforeAll(async () => {
    user = await stack.newUser();
    const all = await Promise.all([
      addCard(stack, user, PG_INDEXES, at(DAY, '08:00:00')),
      addCard(stack, user, TEMPORAL_RETRIES, at(DAY, '09:00:00')),
      addCard(stack, user, PG_PARTIAL, at(addDays(DAY, -3), '08:00:00')),
      addCard(stack, user, SOURDOUGH, at(addDays(DAY, -3), '09:00:00')),
      addCard(stack, user, HTTP_CACHING, at(addDays(DAY, -2), '09:00:00')),
    ]);
    today = all.slice(0, 2);
    earlier = all.slice(2);
    const res = await postTil(user, DAY);
    summaryId = res.json().summaryId;
    expect((await waitForJob(stack, res.json().jobId, user.auth)).status).toBe('COMPLETED');
  });

  const recall = (u: User, id = summaryId) => stack.app.inject({ method: 'GET', url: `/til/${id}/recall-cards`, headers: u.auth });

  it("excludes the TIL's own source cards and returns the user's earlier cards, nearest first", async () => {
    const res = await recall(user);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.summaryId).toBe(summaryId);
    expect(body.threshold).toBe(0.5);
    const ids = body.cards.map((c: { cardId: string }) => c.cardId);
    for (const c of today) expect(ids).not.toContain(c.cardId);
    for (const id of ids) expect(earlier.map((c) => c.cardId)).toContain(id);
    for (let i = 1; i < body.cards.length; i++) expect(body.cards[i].distance).toBeGreaterThanOrEqual(body.cards[i - 1].distance);
    if (body.matchedBy === 'threshold') for (const c of body.cards) expect(c.distance).toBeLessThanOrEqual(0.5);
    else expect(body.cards).toHaveLength(earlier.length); // K = 5 > 3 candidates
  });

  it('threshold: a TIL embedding equal to an earlier card matches it at distance 0; fallback: an unrelated one gives the K nearest', async () => {
    const target = earlier[0]!;
    const card = await stack.db.knowledgeCard.findUniqueOrThrow({ where: { id: target.cardId } });
    await stack.db.dailySummary.update({ where: { id: summaryId }, data: { embedding: card.embedding } });
    const near = (await recall(user)).json();
    expect(near.matchedBy).toBe('threshold');
    expect(near.cards[0]).toMatchObject({ cardId: target.cardId });
    expect(near.cards[0].distance).toBeCloseTo(0, 5);
    for (const c of near.cards) expect(c.distance).toBeLessThanOrEqual(0.5);

    // A direction no card uses: every distance is about 1, so none passes 0.5 → K-nearest fallback.
    const lonely = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i % 2 === 0 ? 1 : -1));
    await stack.db.dailySummary.update({ where: { id: summaryId }, data: { embedding: new Uint8Array(encodeEmbedding(lonely)) } });
    const far = (await recall(user)).json();
    expect(far.matchedBy).toBe('fallback');
    expect(far.cards.map((c: { cardId: string }) => c.cardId).sort()).toEqual(earlier.map((c) => c.cardId).sort());
    for (const c of far.cards) expect(c.distance).toBeGreaterThan(0.5);
  });

  it("another user's summary is 404, and so is an unknown one; before generation it is 409", async () => {
    const bob = await stack.newUser();
    expect((await recall(bob)).statusCode).toBe(404);
    expect((await recall(user, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await recall(user, 'nope')).statusCode).toBe(400);
    const pending = await stack.db.dailySummary.create({ data: { userId: user.userId, targetDate: new Date('2020-01-01T00:00:00Z') } });
    const res = await recall(user, pending.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('TIL_NOT_GENERATED');
  });
});

describe('ownership', () => {
  it("another user's TIL does not exist for you", async () => {
    const alice = await stack.newUser();
    const bob = await stack.newUser();
    await addCard(stack, alice, GIT_REBASE, at(DAY, '07:00:00'));
    const res = await postTil(alice, DAY);
    await waitForJob(stack, res.json().jobId, alice.auth);
    expect((await getTil(bob, DAY)).statusCode).toBe(404);
    expect((await stack.app.inject({ method: 'GET', url: `/async-jobs/${res.json().jobId}`, headers: bob.auth })).statusCode).toBe(404);
    expect((await postTil(bob, DAY)).json().code).toBe('NO_CARDS_FOR_DATE'); // alice's cards are not bob's
  });
});

describe('OpenAPI', () => {
  it('documents the TIL and recall-quiz routes', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([
      '/til', '/til/{summaryId}/recall-cards', '/recall-quizzes', '/recall-quizzes/{generationId}',
    ]));
    expect(Object.keys(doc.paths['/til'])).toEqual(expect.arrayContaining(['get', 'post']));
  });
});
