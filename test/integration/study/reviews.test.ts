/**
 * The review loop on the real PostgreSQL and Temporal, through the API: reviews move
 * a card's ts-fsrs progress and append to its log (serialised per card under concurrency, safe to
 * retry with an Idempotency-Key), due cards are listed, retired cards refuse reviews, reminders are
 * set per user, and the reminder Schedule writes one outbox row per user and local day with due cards.
 */
import { randomUUID } from 'node:crypto';
import { memoCardKey } from '../../../src/domain/study/keys';
import type { MemoCard } from '../../../src/domain/study/cards';
import { runReminderPass } from '../../../src/services/study/reminders';
import { scheduleDecl } from '../../../src/families';
import { type Config } from '../../../src/families';
import { ensureSchedules, scheduleId } from '../../../src/workers/schedules';
import { STUDY_CARDS_QUEUE, studyCardQueues } from '../../../src/domain/study/contracts';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false });
});
afterAll(async () => stack?.stop());

type User = Awaited<ReturnType<Stack['newUser']>>;

/** Live cards of a new topic of `user`, created `createdAt` (default a minute ago), as the extraction stores them. */
async function cards(user: User, texts: string[], opts: { createdAt?: Date; retired?: boolean } = {}): Promise<string[]> {
  const topic = await stack.db.studyTopic.create({ data: { userId: user.userId, name: `topic ${randomUUID()}` } });
  const question = await stack.db.studyQuestion.create({ data: { userId: user.userId, topicId: topic.id, question: 'Q?' } });
  const ids: string[] = [];
  for (const text of texts) {
    const card: MemoCard = { kind: 'basic', cue: `${text}?`, answer: text, evidence: [{ ref: 'explanation', quote: text }] };
    const row = await stack.db.studyMemoCard.create({
      data: {
        userId: user.userId,
        topicId: topic.id,
        sourceKind: 'study_question',
        sourceId: question.id,
        sourceVersion: new Date(),
        kind: 'basic',
        cue: card.cue,
        answer: card.answer,
        normalizedKey: memoCardKey(card),
        jobId: randomUUID(),
        createdAt: opts.createdAt ?? new Date(Date.now() - 60_000),
        deletedAt: opts.retired ? new Date() : null,
      },
    });
    ids.push(row.id);
  }
  return ids;
}

const post = (user: User, cardId: string, payload: unknown, headers: Record<string, string> = {}) =>
  stack.app.inject({ method: 'POST', url: `/study/memo-cards/${cardId}/reviews`, headers: { ...user.auth, ...headers }, payload: payload as object });
const due = (user: User, query = '') => stack.app.inject({ method: 'GET', url: `/study/memo-cards/due${query}`, headers: user.auth });

describe('reviews', () => {
  test('a review moves the progress with ts-fsrs, logs it, and takes the card off the due list', async () => {
    const user = await stack.newUser();
    const [a, b] = await cards(user, ['partial index', 'write-ahead log']);
    const before = (await due(user)).json();
    expect(before.dueCount).toBe(2);
    expect(before.cards.map((c: { cardId: string; state: string }) => [c.cardId, c.state]).sort()).toEqual([[a, 'new'], [b, 'new']].sort());

    const res = await post(user, a!, { rating: 'good' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ cardId: a, rating: 'good', progress: { state: 'learning', reps: 1, lapses: 0 } });
    expect(Date.parse(body.progress.due) - Date.parse(body.reviewedAt)).toBe(10 * 60_000);

    const after = (await due(user)).json();
    expect(after.dueCount).toBe(1);
    expect(after.cards.map((c: { cardId: string }) => c.cardId)).toEqual([b]);

    expect((await post(user, a!, { rating: 1 })).json()).toMatchObject({ rating: 'again', progress: { reps: 2 } });
    const log = (await stack.app.inject({ method: 'GET', url: `/study/memo-cards/${a}/reviews`, headers: user.auth })).json();
    expect(log.reviews.map((r: { rating: string; stateBefore: string }) => [r.rating, r.stateBefore])).toEqual([['again', 'learning'], ['good', 'new']]);
    const progress = await stack.db.studyMemoCardProgress.findUniqueOrThrow({ where: { cardId: a! } });
    expect({ reps: progress.reps, state: progress.state, userId: progress.userId }).toEqual({ reps: 2, state: 1, userId: user.userId });
  });

  test('20 concurrent reviews of one card: 20 log rows and reps 20 (no lost update)', async () => {
    const user = await stack.newUser();
    const [card] = await cards(user, ['MVCC']);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(user, card!, { rating: 'good' })));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(await stack.db.studyMemoCardReview.count({ where: { cardId: card! } })).toBe(20);
    expect((await stack.db.studyMemoCardProgress.findUniqueOrThrow({ where: { cardId: card! } })).reps).toBe(20);
    const reps = answers.map((r) => r.json().progress.reps as number).sort((x, y) => x - y);
    expect(reps).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  test('with an Idempotency-Key a retried review is recorded once; another rating under the key conflicts', async () => {
    const user = await stack.newUser();
    const [card] = await cards(user, ['vacuum']);
    const key = { 'idempotency-key': `review-${randomUUID()}` };
    const [first, second] = await Promise.all([post(user, card!, { rating: 'easy' }, key), post(user, card!, { rating: 'easy' }, key)]);
    expect([first!.statusCode, second!.statusCode]).toEqual([201, 201]);
    expect(second!.json().reviewId).toBe(first!.json().reviewId);
    expect(await stack.db.studyMemoCardReview.count({ where: { cardId: card! } })).toBe(1);
    const conflict = await post(user, card!, { rating: 'hard' }, key);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT' });
  });

  test('bad ratings are 400, unknown or other users’ cards 404, retired cards 409 — all problem+json', async () => {
    const user = await stack.newUser();
    const other = await stack.newUser();
    const [card] = await cards(user, ['B-tree']);
    const [retired] = await cards(user, ['old explanation'], { retired: true });
    for (const payload of [{ rating: 'perfect' }, { rating: 0 }, { rating: 5 }, {}, { rating: 'good', extra: 1 }]) {
      const res = await post(user, card!, payload);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect((await post(user, 'not-a-uuid', { rating: 'good' })).statusCode).toBe(400);
    expect((await post(user, randomUUID(), { rating: 'good' })).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await post(other, card!, { rating: 'good' })).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await post(user, retired!, { rating: 'good' })).json()).toMatchObject({ status: 409, code: 'MEMO_CARD_RETIRED' });
    expect(await stack.db.studyMemoCardReview.count({ where: { userId: user.userId } })).toBe(0);
    expect((await stack.app.inject({ method: 'GET', url: `/study/memo-cards/${card}/reviews`, headers: other.auth })).statusCode).toBe(404);
  });

  test('the due list: most overdue first, cut at limit with the full count, by topic, never retired or future cards', async () => {
    const user = await stack.newUser();
    const old = await cards(user, ['oldest'], { createdAt: new Date(Date.now() - 3 * 86_400_000) });
    const recent = await cards(user, ['recent 1', 'recent 2']);
    await cards(user, ['retired'], { retired: true });
    await cards(user, ['future'], { createdAt: new Date(Date.now() + 86_400_000) });
    const page = (await due(user, '?limit=2')).json();
    expect(page.dueCount).toBe(3);
    expect(page.cards).toHaveLength(2);
    expect(page.cards[0].cardId).toBe(old[0]);
    const topicId = (await stack.db.studyMemoCard.findUniqueOrThrow({ where: { id: recent[0]! } })).topicId;
    const byTopic = (await due(user, `?topicId=${topicId}`)).json();
    expect(byTopic.cards.map((c: { cardId: string }) => c.cardId).sort()).toEqual([...recent].sort());
    expect((await due(user, '?limit=0')).statusCode).toBe(400);
  });
});

describe('reminders', () => {
  test('set, read, replace and remove the daily reminder; the time zone defaults to the user’s', async () => {
    const user = await stack.newUser();
    await stack.db.user.update({ where: { id: user.userId }, data: { timeZone: 'Asia/Seoul' } });
    const put = (payload: object) => stack.app.inject({ method: 'PUT', url: '/study/reminders', headers: user.auth, payload });
    expect((await stack.app.inject({ method: 'GET', url: '/study/reminders', headers: user.auth })).statusCode).toBe(404);
    expect((await put({ localTime: '08:30' })).json()).toMatchObject({ localTime: '08:30', timeZone: 'Asia/Seoul', enabled: true });
    expect((await put({ localTime: '21:05', timeZone: 'Europe/Berlin', enabled: false })).json()).toMatchObject({ localTime: '21:05', timeZone: 'Europe/Berlin', enabled: false });
    expect((await stack.app.inject({ method: 'GET', url: '/study/reminders', headers: user.auth })).json()).toMatchObject({ localTime: '21:05' });
    for (const bad of [{ localTime: '25:00' }, { localTime: '8:30' }, { localTime: '08:30', timeZone: 'Mars/Olympus' }, { timeZone: 'UTC' }]) {
      const res = await put(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect((await stack.app.inject({ method: 'DELETE', url: '/study/reminders', headers: user.auth })).statusCode).toBe(204);
    expect((await stack.app.inject({ method: 'DELETE', url: '/study/reminders', headers: user.auth })).statusCode).toBe(404);
  });

  test('a pass reminds exactly the users whose time has come and who have due cards, once per local day', async () => {
    const now = new Date('2026-12-02T00:00:00Z'); // 09:00 in Seoul, 01:00 in Berlin, 19:00 in New York
    const make = async (localTime: string, timeZone: string, withCards: boolean, enabled = true) => {
      const u = await stack.newUser();
      if (withCards) await cards(u, ['due card'], { createdAt: new Date('2026-12-01T00:00:00Z') });
      await stack.db.studyReminder.create({ data: { userId: u.userId, localTime, timeZone, enabled } });
      return u;
    };
    const seoul = await make('08:30', 'Asia/Seoul', true); // time has come, due cards → reminded
    const berlin = await make('08:30', 'Europe/Berlin', true); // 01:00 local: not yet
    const empty = await make('08:30', 'Asia/Seoul', false); // no due cards
    const off = await make('08:30', 'Asia/Seoul', true, false); // disabled
    const nyc = await make('18:00', 'America/New_York', true); // 19:00 local on Dec 1 → reminded for Dec 1

    const [p1, p2] = await Promise.all([runReminderPass(stack.db, { now, batchSize: 2 }), runReminderPass(stack.db, { now, batchSize: 2 })]);
    expect((p1?.reminded ?? 0) + (p2?.reminded ?? 0)).toBeGreaterThanOrEqual(2);
    const again = await runReminderPass(stack.db, { now, batchSize: 2 });
    const mine = [seoul, berlin, empty, off, nyc].map((u) => u.userId);
    const rows = await stack.db.studyReminderOutbox.findMany({ where: { userId: { in: mine } } });
    expect(rows.map((r) => [r.userId, r.localDate.toISOString().slice(0, 10), r.dueCount]).sort()).toEqual(
      [[seoul.userId, '2026-12-02', 1], [nyc.userId, '2026-12-01', 1]].sort(),
    );
    expect(again.scanned).toBeGreaterThanOrEqual(4);

    // the user without due cards is reminded by a later pass of the same day once a card is due
    await cards(empty, ['now due'], { createdAt: new Date('2026-12-02T00:30:00Z') });
    await runReminderPass(stack.db, { now: new Date('2026-12-02T01:00:00Z'), batchSize: 500 });
    expect(await stack.db.studyReminderOutbox.count({ where: { userId: empty.userId } })).toBe(1);
    // Berlin's local 08:30 comes later the same UTC day
    await runReminderPass(stack.db, { now: new Date('2026-12-02T07:30:00Z'), batchSize: 500 });
    expect(await stack.db.studyReminderOutbox.count({ where: { userId: berlin.userId, localDate: new Date('2026-12-02T00:00:00Z') } })).toBe(1);

    // the outbox through the API: newest first, paginated, mark read once
    const list = (await stack.app.inject({ method: 'GET', url: '/study/reminders/outbox?limit=1', headers: seoul.auth })).json();
    expect(list.items).toEqual([expect.objectContaining({ localDate: '2026-12-02', dueCount: 1, readAt: null })]);
    expect(list.nextCursor).toBeNull();
    const id = list.items[0].id as string;
    const read = (await stack.app.inject({ method: 'POST', url: `/study/reminders/outbox/${id}/read`, headers: seoul.auth })).json();
    expect(read.readAt).not.toBeNull();
    const reread = (await stack.app.inject({ method: 'POST', url: `/study/reminders/outbox/${id}/read`, headers: seoul.auth })).json();
    expect(reread.readAt).toBe(read.readAt);
    expect((await stack.app.inject({ method: 'GET', url: '/study/reminders/outbox?unreadOnly=true', headers: seoul.auth })).json().items).toEqual([]);
    expect((await stack.app.inject({ method: 'POST', url: `/study/reminders/outbox/${id}/read`, headers: berlin.auth })).statusCode).toBe(404);
  });

  test('the Schedule is created idempotently and its run, on the study-cards queue, writes the outbox', async () => {
    const config = { ...stack.config, reconcile: { ...stack.config.reconcile, schedulesEnabled: true } };
    const queue = studyCardQueues(config.temporal.taskQueuePrefix).studyCards;
    const ensureReminders = (c: Config) => ensureSchedules(stack.client, c, [scheduleDecl('study-reminders')]);
    const stopWorker = await stack.startOwnQueueWorker(STUDY_CARDS_QUEUE);
    expect(await ensureReminders(config)).toEqual([scheduleId(config, 'study-reminders')]);
    const slower = { ...config, studyReminders: { ...config.studyReminders, intervalMinutes: 60 } };
    expect(await ensureReminders(slower)).toEqual([scheduleId(config, 'study-reminders')]);
    const handle = stack.client.schedule.getHandle(scheduleId(config, 'study-reminders'));
    try {
      const described = await handle.describe();
      expect(described.spec.intervals?.[0]?.every).toBe(3_600_000);
      expect(described.policies.overlap).toBe('SKIP');
      expect(described.action).toMatchObject({ workflowType: 'studyRemindersWorkflow', taskQueue: queue });

      const user = await stack.newUser();
      await cards(user, ['scheduled'], { createdAt: new Date(Date.now() - 86_400_000) });
      await stack.db.studyReminder.create({ data: { userId: user.userId, localTime: '00:00', timeZone: 'UTC' } });
      await handle.trigger();
      const row = await pollUntil(() => stack.db.studyReminderOutbox.findFirst({ where: { userId: user.userId } }), (r) => r !== null, {
        describe: 'the triggered reminder run to write the outbox',
        timeoutMs: 30_000,
      });
      expect(row?.dueCount).toBe(1);
      expect(await ensureReminders({ ...config, studyReminders: { ...config.studyReminders, scheduleEnabled: false } })).toEqual([]);
      expect(await ensureReminders({ ...config, reconcile: { ...config.reconcile, schedulesEnabled: false } })).toEqual([]);
    } finally {
      await handle.delete();
      await stopWorker();
    }
  });
});
