/**
 * The memo-card review loop: recording a review (the card's progress moves by ts-fsrs,
 * a review-log row is appended, both in one transaction under the card's row lock) and the listing
 * of due cards. A live card without a progress row is New and due since its creation. Services throw
 * DomainErrors; only the API maps them to HTTP.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import { claimIdempotencyKey, recordIdempotentAnswer } from '../../core/idempotency';
import type { DbClient } from '../../db/client';
import { newProgress, review, type ProgressState, type ReviewRating } from '../../domain/study/review';
import { ST_ERRORS } from '../../domain/study/errors';

/** Interactive-transaction limits: reviews of one card queue on its row lock. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/** One stored review with the card's progress after it. */
export interface RecordedReview {
  reviewId: string;
  cardId: string;
  rating: number;
  reviewedAt: Date;
  progress: ProgressState;
}

/** Input of {@link recordReview}. */
export interface ReviewRequest {
  userId: string;
  cardId: string;
  rating: ReviewRating;
  /** The review's instant (default now). */
  now?: Date;
  /** An `Idempotency-Key`: a repeated request with the same key and body answers the first review again. */
  idempotencyKey?: string;
}

interface LockedCard {
  id: string;
  user_id: string;
  deleted_at: Date | null;
  created_at: Date;
}

/** A stored review with the card's CURRENT progress (later reviews included), for idempotent replays. */
async function storedReview(tx: DbClient, reviewId: string): Promise<RecordedReview> {
  const r = await tx.studyMemoCardReview.findUniqueOrThrow({ where: { id: reviewId } });
  const p = await tx.studyMemoCardProgress.findUniqueOrThrow({ where: { cardId: r.cardId } });
  return { reviewId: r.id, cardId: r.cardId, rating: r.rating, reviewedAt: r.reviewedAt, progress: progressOf(p) };
}

function progressOf(p: ProgressState): ProgressState {
  return {
    due: p.due,
    stability: p.stability,
    difficulty: p.difficulty,
    elapsedDays: p.elapsedDays,
    scheduledDays: p.scheduledDays,
    learningSteps: p.learningSteps,
    reps: p.reps,
    lapses: p.lapses,
    state: p.state,
    lastReview: p.lastReview,
  };
}

/**
 * Records one review of the caller's card: locks the card row (concurrent reviews of one card run
 * one after another, each from the state the previous one left), moves its progress with ts-fsrs
 * and appends the review log, in one transaction. With an idempotency key, a replay of the same
 * request answers the first review and records nothing (a different body is a conflict).
 * @throws DomainError not-found NOT_FOUND (no such card of this user); conflict MEMO_CARD_RETIRED
 *   (the card was retired by a newer source version); the idempotency errors of
 *   {@link claimIdempotencyKey}.
 */
export async function recordReview(db: PrismaClient, req: ReviewRequest): Promise<RecordedReview & { replayed: boolean }> {
  const now = req.now ?? new Date();
  return db.$transaction(async (tx) => {
    if (req.idempotencyKey) {
      const claim = await claimIdempotencyKey(tx, {
        scopeId: req.userId,
        operation: `study.memo-cards.review:${req.cardId}`,
        key: req.idempotencyKey,
        request: { cardId: req.cardId, rating: req.rating },
        now,
      });
      if (claim.kind === 'replay') return { ...(await storedReview(tx, claim.resourceId)), replayed: true };
      const recorded = await reviewLocked(tx, req, now);
      await recordIdempotentAnswer(tx, claim.recordId, { statusCode: 201, resourceType: 'study-memo-card-review', resourceId: recorded.reviewId });
      return { ...recorded, replayed: false };
    }
    return { ...(await reviewLocked(tx, req, now)), replayed: false };
  }, TX_OPTIONS);
}

async function reviewLocked(tx: Prisma.TransactionClient, req: ReviewRequest, now: Date): Promise<RecordedReview> {
  const [card] = await tx.$queryRaw<LockedCard[]>`
    SELECT id, user_id, deleted_at, created_at FROM study_memo_cards WHERE id = ${req.cardId}::uuid FOR UPDATE`;
  if (!card || card.user_id !== req.userId) throw ST_ERRORS.problem('NOT_FOUND', `memo card ${req.cardId} not found`);
  if (card.deleted_at) {
    throw ST_ERRORS.problem('MEMO_CARD_RETIRED', `memo card ${req.cardId} was retired by a newer version of its source; review its live successor`);
  }
  const stored = await tx.studyMemoCardProgress.findUnique({ where: { cardId: card.id } });
  const next = review(stored ? progressOf(stored) : newProgress(card.created_at), req.rating, now);
  const progress = { ...next.progress };
  await tx.studyMemoCardProgress.upsert({
    where: { cardId: card.id },
    create: { cardId: card.id, userId: req.userId, ...progress },
    update: progress,
  });
  const log = await tx.studyMemoCardReview.create({ data: { cardId: card.id, userId: req.userId, ...next.log } });
  return { reviewId: log.id, cardId: card.id, rating: log.rating, reviewedAt: log.reviewedAt, progress: next.progress };
}

/** One due card as listed. */
export interface DueCard {
  cardId: string;
  kind: 'basic' | 'cloze';
  cue: string | null;
  answer: string;
  clozeText: string | null;
  topicId: string | null;
  sourceKind: string;
  sourceId: string;
  due: Date;
  state: number;
  reps: number;
  lapses: number;
}

interface DueRow {
  id: string;
  kind: 'basic' | 'cloze';
  cue: string | null;
  answer: string;
  cloze_text: string | null;
  topic_id: string | null;
  source_kind: string;
  source_id: string;
  due: Date;
  state: number;
  reps: number;
  lapses: number;
}

/**
 * The caller's live cards due at `now` (progress due ≤ now, or never reviewed), most overdue first
 * (ties by id), at most `limit`; with `topicId`, of that topic only. `dueCount` counts all of them.
 */
export async function listDueCards(
  db: DbClient,
  q: { userId: string; now?: Date; limit: number; topicId?: string },
): Promise<{ now: Date; dueCount: number; cards: DueCard[] }> {
  const now = q.now ?? new Date();
  const topic = q.topicId ? Prisma.sql`AND c.topic_id = ${q.topicId}::uuid` : Prisma.empty;
  const where = Prisma.sql`
    FROM study_memo_cards c LEFT JOIN study_memo_card_progress p ON p.card_id = c.id
    WHERE c.user_id = ${q.userId}::uuid AND c.deleted_at IS NULL ${topic}
      AND COALESCE(p.due, c.created_at) <= ${now}`;
  const [rows, counted] = await Promise.all([
    db.$queryRaw<DueRow[]>`
      SELECT c.id, c.kind::text AS kind, c.cue, c.answer, c.cloze_text, c.topic_id, c.source_kind::text AS source_kind, c.source_id,
             COALESCE(p.due, c.created_at) AS due, COALESCE(p.state, 0) AS state, COALESCE(p.reps, 0) AS reps, COALESCE(p.lapses, 0) AS lapses
      ${where}
      ORDER BY COALESCE(p.due, c.created_at) ASC, c.id ASC
      LIMIT ${q.limit}`,
    db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n ${where}`,
  ]);
  return {
    now,
    dueCount: counted[0]?.n ?? 0,
    cards: rows.map((r) => ({
      cardId: r.id,
      kind: r.kind,
      cue: r.cue,
      answer: r.answer,
      clozeText: r.cloze_text,
      topicId: r.topic_id,
      sourceKind: r.source_kind,
      sourceId: r.source_id,
      due: r.due,
      state: Number(r.state),
      reps: Number(r.reps),
      lapses: Number(r.lapses),
    })),
  };
}

/** The review log of one of the caller's cards, newest first, at most `limit`. @throws DomainError not-found NOT_FOUND. */
export async function listReviews(db: DbClient, q: { userId: string; cardId: string; limit: number }) {
  const card = await db.studyMemoCard.findFirst({ where: { id: q.cardId, userId: q.userId }, select: { id: true } });
  if (!card) throw ST_ERRORS.problem('NOT_FOUND', `memo card ${q.cardId} not found`);
  return db.studyMemoCardReview.findMany({ where: { cardId: card.id }, orderBy: [{ reviewedAt: 'desc' }, { id: 'desc' }], take: q.limit });
}
