/**
 * The memo-card review loop's scheduling: a card's spaced-repetition state is a
 * ts-fsrs `Card` (FSRS, the scheduler Anki ships), stored column by column in
 * study_memo_card_progress; one review is `scheduler.next(card, now, rating)`, whose `log` is the
 * study_memo_card_reviews row. A card without a progress row is New and due since it was created.
 * Pure (ts-fsrs is pure computation): safe anywhere, no I/O.
 *
 * Why ts-fsrs (pinned 5.4.2): the reference TypeScript implementation of FSRS by the algorithm's
 * authors (open-spaced-repetition), with the default parameters fitted on large review datasets;
 * writing a scheduler here would be own code outside the project's purpose. Fuzz is off, so the same
 * review history always gives the same due dates (tests, replays, support questions).
 */
import type { Card, Grade, ReviewLog, State } from 'ts-fsrs' with { 'resolution-mode': 'import' };

// ts-fsrs declares its types as ESM only but ships a CommonJS build (its `require` export), which
// this CommonJS project loads synchronously; the types come from the ESM declaration.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createEmptyCard, fsrs, Rating } = require('ts-fsrs') as typeof import('ts-fsrs', { with: { 'resolution-mode': 'import' } });

/** Ratings as the API names them (FSRS grades 1 … 4). */
export const REVIEW_RATINGS = ['again', 'hard', 'good', 'easy'] as const;
export type ReviewRating = (typeof REVIEW_RATINGS)[number];

/** FSRS states by number (the stored `state` column). */
export const CARD_STATES = ['new', 'learning', 'review', 'relearning'] as const;
export type CardStateName = (typeof CARD_STATES)[number];

const GRADE: Record<ReviewRating, Grade> = { again: Rating.Again, hard: Rating.Hard, good: Rating.Good, easy: Rating.Easy };

/** The rating of a grade number 1 … 4, or of its name. */
export function ratingOf(value: ReviewRating | number): ReviewRating {
  if (typeof value === 'string') return value;
  const r = REVIEW_RATINGS[value - 1];
  if (!r) throw new RangeError(`rating must be 1 … 4, got ${value}`);
  return r;
}

/** The progress columns (study_memo_card_progress without its keys). Dates are instants; days whole days. */
export interface ProgressState {
  due: Date;
  stability: number;
  difficulty: number;
  elapsedDays: number;
  scheduledDays: number;
  learningSteps: number;
  reps: number;
  lapses: number;
  state: number;
  lastReview: Date | null;
}

/** The review-log columns (study_memo_card_reviews without its keys): the state BEFORE the review, and its rating. */
export interface ReviewLogState {
  rating: number;
  state: number;
  due: Date;
  stability: number;
  difficulty: number;
  elapsedDays: number;
  lastElapsedDays: number;
  scheduledDays: number;
  learningSteps: number;
  reviewedAt: Date;
}

const scheduler = fsrs({ enable_fuzz: false, request_retention: 0.9, maximum_interval: 36_500 });

/** The progress of a card never reviewed: New, due at `createdAt`. */
export function newProgress(createdAt: Date): ProgressState {
  return fromCard(createEmptyCard(createdAt));
}

function toCard(p: ProgressState): Card {
  return {
    due: p.due,
    stability: p.stability,
    difficulty: p.difficulty,
    elapsed_days: p.elapsedDays,
    scheduled_days: p.scheduledDays,
    learning_steps: p.learningSteps,
    reps: p.reps,
    lapses: p.lapses,
    state: p.state as State,
    ...(p.lastReview ? { last_review: p.lastReview } : {}),
  };
}

function fromCard(c: Card): ProgressState {
  return {
    due: c.due,
    stability: c.stability,
    difficulty: c.difficulty,
    elapsedDays: c.elapsed_days,
    scheduledDays: c.scheduled_days,
    learningSteps: c.learning_steps,
    reps: c.reps,
    lapses: c.lapses,
    state: c.state,
    lastReview: c.last_review ?? null,
  };
}

function fromLog(l: ReviewLog): ReviewLogState {
  return {
    rating: l.rating,
    state: l.state,
    due: l.due,
    stability: l.stability,
    difficulty: l.difficulty,
    elapsedDays: l.elapsed_days,
    lastElapsedDays: l.last_elapsed_days,
    scheduledDays: l.scheduled_days,
    learningSteps: l.learning_steps,
    reviewedAt: l.review,
  };
}

/**
 * One review at `now` with `rating` of a card in state `progress`: the new progress and the log
 * row. A review earlier than the last one is scheduled as if it happened at the last review
 * (clocks may disagree; a due date never moves into the past of a review already counted).
 */
export function review(progress: ProgressState, rating: ReviewRating, now: Date): { progress: ProgressState; log: ReviewLogState } {
  const at = progress.lastReview && now < progress.lastReview ? progress.lastReview : now;
  const { card, log } = scheduler.next(toCard(progress), at, GRADE[rating]);
  return { progress: fromCard(card), log: fromLog(log) };
}

/** The state's name (`new`, `learning`, `review`, `relearning`). */
export function stateName(state: number): CardStateName {
  return CARD_STATES[state] ?? 'new';
}
