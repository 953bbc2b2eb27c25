/**
 * Review scheduling with ts-fsrs: progress columns ↔ ts-fsrs cards, the log holds the state
 * before the review, ratings move due dates in FSRS order, lapses count forgotten review cards, and
 * the same history always gives the same schedule (no fuzz).
 */
import { newProgress, ratingOf, review, stateName, type ProgressState, type ReviewRating } from '../../../src/domain/study/review';

const T0 = new Date('2026-12-01T09:00:00Z');
const minutes = (a: Date, b: Date) => (b.getTime() - a.getTime()) / 60_000;
const days = (a: Date, b: Date) => (b.getTime() - a.getTime()) / 86_400_000;

function history(ratings: ReviewRating[], start = T0): { progress: ProgressState; at: Date } {
  let progress = newProgress(start);
  let at = start;
  for (const r of ratings) {
    progress = review(progress, r, at).progress;
    at = progress.due; // review exactly when due
  }
  return { progress, at };
}

test('a new card is New and due at its creation', () => {
  expect(newProgress(T0)).toMatchObject({ due: T0, state: 0, reps: 0, lapses: 0, lastReview: null });
  expect(stateName(newProgress(T0).state)).toBe('new');
});

test('the first review: again < hard < good < easy, and the log holds the state before it', () => {
  const due = (['again', 'hard', 'good', 'easy'] as const).map((r) => review(newProgress(T0), r, T0).progress.due.getTime());
  expect([...due].sort((a, b) => a - b)).toEqual(due);
  const { progress, log } = review(newProgress(T0), 'good', T0);
  expect(progress).toMatchObject({ state: 1, reps: 1, lastReview: T0 });
  expect(minutes(T0, progress.due)).toBe(10); // the default learning step
  expect(log).toMatchObject({ rating: 3, state: 0, reviewedAt: T0, due: T0 });
  expect(stateName(review(newProgress(T0), 'easy', T0).progress.state)).toBe('review');
});

test('good reviews on time make intervals grow; forgetting a review card is a lapse and relearning', () => {
  const { progress } = history(['good', 'good', 'good', 'good']);
  expect(stateName(progress.state)).toBe('review');
  expect(progress.reps).toBe(4);
  const gaps: number[] = [];
  let p = progress;
  for (let i = 0; i < 3; i++) {
    const next = review(p, 'good', p.due).progress;
    gaps.push(days(p.due, next.due));
    p = next;
  }
  expect(gaps[0]).toBeGreaterThanOrEqual(1);
  expect(gaps[1]).toBeGreaterThan(gaps[0] as number);
  expect(gaps[2]).toBeGreaterThan(gaps[1] as number);
  const forgot = review(progress, 'again', progress.due).progress;
  expect(forgot.lapses).toBe(1);
  expect(stateName(forgot.state)).toBe('relearning');
  expect(forgot.due.getTime()).toBeLessThan(review(progress, 'good', progress.due).progress.due.getTime());
});

test('deterministic: the same history gives the same schedule', () => {
  expect(history(['good', 'hard', 'again', 'good', 'easy'])).toEqual(history(['good', 'hard', 'again', 'good', 'easy']));
});

test('a review stamped before the last one is scheduled from the last one', () => {
  const first = review(newProgress(T0), 'good', T0).progress;
  const early = review(first, 'good', new Date(T0.getTime() - 3_600_000));
  expect(early.log.reviewedAt).toEqual(T0);
  expect(early.progress.due.getTime()).toBeGreaterThanOrEqual(T0.getTime());
});

test('ratings by name or grade number', () => {
  expect([1, 2, 3, 4].map((n) => ratingOf(n))).toEqual(['again', 'hard', 'good', 'easy']);
  expect(ratingOf('easy')).toBe('easy');
  expect(() => ratingOf(5)).toThrow(RangeError);
});
