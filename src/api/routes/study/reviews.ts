/**
 * The memo-card review loop's routes, scoped to the caller's own cards:
 * `POST /study/memo-cards/{cardId}/reviews` (ts-fsrs progress + review log), its log, `GET
 * /study/memo-cards/due`, the daily reminder (`PUT|GET|DELETE /study/reminders`) and the reminders
 * outbox the reminder Schedule writes (`GET /study/reminders/outbox`, `POST …/{id}/read`).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from '../../../core/idempotency';
import { CARD_STATES, ratingOf, REVIEW_RATINGS, stateName, type ProgressState } from '../../../domain/study/review';
import { isTimeZone, LOCAL_TIME_RE } from '../../../domain/study/reminders';
import { deleteReminder, getReminder, listOutbox, markOutboxRead, putReminder, type ReminderView } from '../../../services/study/reminders';
import { listDueCards, listReviews, recordReview } from '../../../services/study/reviews';
import type { ApiDeps } from '../../deps';
import { decodeCursor, pageOf, PageQuery } from '../../pagination';
import { ProblemSchema } from '../../problem';
import { idempotencyKeyHeaders, Uuid } from '../../schemas';
import { notFound } from '../../../core/errors';

const Rating = z
  .union([z.enum(REVIEW_RATINGS), z.number().int().min(1).max(4)])
  .describe('again | hard | good | easy, or the FSRS grade 1 … 4');

const ProgressSchema = z
  .object({
    state: z.enum(CARD_STATES),
    due: z.iso.datetime(),
    stability: z.number(),
    difficulty: z.number(),
    scheduledDays: z.number().int(),
    reps: z.number().int(),
    lapses: z.number().int(),
    lastReview: z.iso.datetime().nullable(),
  })
  .meta({ id: 'StudyMemoCardProgress' });

const ReviewResult = z
  .object({ reviewId: z.uuid(), cardId: z.uuid(), rating: z.enum(REVIEW_RATINGS), reviewedAt: z.iso.datetime(), progress: ProgressSchema })
  .meta({ id: 'StudyMemoCardReviewResult' });

const ReviewLogSchema = z
  .object({
    reviews: z.array(
      z.object({
        reviewId: z.uuid(),
        rating: z.enum(REVIEW_RATINGS),
        reviewedAt: z.iso.datetime(),
        stateBefore: z.enum(CARD_STATES),
        scheduledDays: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'StudyMemoCardReviewLog' });

const DueList = z
  .object({
    now: z.iso.datetime(),
    dueCount: z.number().int().describe('all due cards (the list is cut at `limit`)'),
    cards: z.array(
      z.object({
        cardId: z.uuid(),
        kind: z.enum(['basic', 'cloze']),
        cue: z.string().nullable(),
        answer: z.string(),
        clozeText: z.string().nullable(),
        topicId: z.uuid().nullable(),
        sourceKind: z.string(),
        sourceId: z.uuid(),
        due: z.iso.datetime(),
        state: z.enum(CARD_STATES),
        reps: z.number().int(),
        lapses: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'StudyDueMemoCards' });

const TimeZone = z.string().refine(isTimeZone, { message: 'must be an IANA time zone such as Asia/Seoul' });

const ReminderSchema = z
  .object({
    localTime: z.string().describe('HH:MM, 24 h, in timeZone'),
    timeZone: z.string(),
    enabled: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'StudyReminder' });

const OutboxItemSchema = z
  .object({ id: z.uuid(), localDate: z.iso.date(), dueCount: z.number().int(), createdAt: z.iso.datetime(), readAt: z.iso.datetime().nullable() })
  .meta({ id: 'StudyReminderOutboxItem' });

const iso = (d: Date) => d.toISOString();
const progressView = (p: ProgressState) => ({
  state: stateName(p.state),
  due: iso(p.due),
  stability: p.stability,
  difficulty: p.difficulty,
  scheduledDays: p.scheduledDays,
  reps: p.reps,
  lapses: p.lapses,
  lastReview: p.lastReview ? iso(p.lastReview) : null,
});
const reminderView = (r: ReminderView) => ({ localTime: r.localTime, timeZone: r.timeZone, enabled: r.enabled, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) });
const outboxView = (o: { id: string; localDate: string; dueCount: number; createdAt: Date; readAt: Date | null }) => ({
  id: o.id,
  localDate: o.localDate,
  dueCount: o.dueCount,
  createdAt: iso(o.createdAt),
  readAt: o.readAt ? iso(o.readAt) : null,
});

/** The review loop's routes (one plugin; src/api/routes/study/index.ts registers it). */
export const studyReviewRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  app.post(
    '/study/memo-cards/:cardId/reviews',
    {
      schema: {
        tags: ['study'],
        summary: "Review a memo card: its ts-fsrs progress moves and the review is logged (optional Idempotency-Key makes a retry safe)",
        params: z.object({ cardId: Uuid }),
        headers: idempotencyKeyHeaders({ required: false, description: 'optional: a retry with the same key answers the first review instead of logging a second.' }),
        body: z.strictObject({ rating: Rating }).meta({ examples: [{ rating: 'good' }, { rating: 1 }] }),
        response: { 201: ReviewResult, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema },
      },
    },
    async (req, reply) => {
      const header = req.headers[IDEMPOTENCY_KEY_HEADER];
      const rating = ratingOf(req.body.rating);
      const r = await recordReview(deps.db, {
        userId: req.userId,
        cardId: req.params.cardId,
        rating,
        ...(header === undefined ? {} : { idempotencyKey: parseIdempotencyKey(header) }),
      });
      req.log.info({ cardId: r.cardId, reviewId: r.reviewId, rating, replayed: r.replayed }, 'memo card reviewed');
      return reply.code(201).send({ reviewId: r.reviewId, cardId: r.cardId, rating: ratingOf(r.rating), reviewedAt: iso(r.reviewedAt), progress: progressView(r.progress) });
    },
  );

  app.get(
    '/study/memo-cards/:cardId/reviews',
    {
      schema: {
        tags: ['study'],
        summary: "A memo card's review log, newest first",
        params: z.object({ cardId: Uuid }),
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) }),
        response: { 200: ReviewLogSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const rows = await listReviews(deps.db, { userId: req.userId, cardId: req.params.cardId, limit: req.query.limit });
      return {
        reviews: rows.map((r) => ({ reviewId: r.id, rating: ratingOf(r.rating), reviewedAt: iso(r.reviewedAt), stateBefore: stateName(r.state), scheduledDays: r.scheduledDays })),
      };
    },
  );

  app.get(
    '/study/memo-cards/due',
    {
      schema: {
        tags: ['study'],
        summary: "The caller's live memo cards due now (never-reviewed cards included), most overdue first",
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), topicId: Uuid.optional() }),
        response: { 200: DueList, 400: ProblemSchema, 401: ProblemSchema },
      },
    },
    async (req) => {
      const due = await listDueCards(deps.db, { userId: req.userId, limit: req.query.limit, ...(req.query.topicId ? { topicId: req.query.topicId } : {}) });
      return {
        now: iso(due.now),
        dueCount: due.dueCount,
        cards: due.cards.map((c) => ({ ...c, due: iso(c.due), state: stateName(c.state) })),
      };
    },
  );

  app.put(
    '/study/reminders',
    {
      schema: {
        tags: ['study'],
        summary: 'Set the daily study reminder: a local time and time zone (default: the user’s)',
        body: z
          .strictObject({ localTime: z.string().regex(LOCAL_TIME_RE, 'must be HH:MM (24 h)'), timeZone: TimeZone.optional(), enabled: z.boolean().optional() })
          .meta({ examples: [{ localTime: '08:30', timeZone: 'Asia/Seoul' }] }),
        response: { 200: ReminderSchema, 400: ProblemSchema, 401: ProblemSchema },
      },
    },
    async (req) => reminderView(await putReminder(deps.db, req.userId, req.body)),
  );

  app.get(
    '/study/reminders',
    { schema: { tags: ['study'], summary: 'The daily study reminder', response: { 200: ReminderSchema, 401: ProblemSchema, 404: ProblemSchema } } },
    async (req) => reminderView(await getReminder(deps.db, req.userId)),
  );

  app.delete(
    '/study/reminders',
    { schema: { tags: ['study'], summary: 'Remove the daily study reminder', response: { 204: z.null(), 401: ProblemSchema, 404: ProblemSchema } } },
    async (req, reply) => {
      if (!(await deleteReminder(deps.db, req.userId))) throw notFound('study reminder');
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/study/reminders/outbox',
    {
      schema: {
        tags: ['study'],
        summary: 'Reminders written by the reminder Schedule (one per local day with due cards), newest first',
        querystring: PageQuery.extend({ unreadOnly: z.enum(['true', 'false']).default('false').transform((v) => v === 'true') }),
        response: { 200: z.object({ items: z.array(OutboxItemSchema), nextCursor: z.string().nullable() }).meta({ id: 'StudyReminderOutbox' }), 400: ProblemSchema, 401: ProblemSchema },
      },
    },
    async (req) => {
      const list = `study-reminders-outbox${req.query.unreadOnly ? ':unread' : ''}`;
      const after = req.query.cursor ? decodeCursor(list, req.query.cursor) : undefined;
      const rows = await listOutbox(deps.db, { userId: req.userId, limit: req.query.limit, unreadOnly: req.query.unreadOnly, ...(after ? { after } : {}) });
      const page = pageOf(list, rows, req.query.limit);
      return { items: page.items.map(outboxView), nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/study/reminders/outbox/:id/read',
    {
      schema: {
        tags: ['study'],
        summary: 'Mark a reminder read (idempotent: readAt keeps its first value)',
        params: z.object({ id: Uuid }),
        response: { 200: OutboxItemSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => outboxView(await markOutboxRead(deps.db, req.userId, req.params.id)),
  );
};
