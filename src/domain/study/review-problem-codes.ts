/**
 * Problem codes of the memo-card review routes (issue 10 §4). The generic ones they also answer
 * live with their shared modules: NOT_FOUND, VALIDATION_FAILED (src/api/problem.ts), the
 * Idempotency-Key codes (src/core/idempotency.ts), INVALID_CURSOR (src/api/pagination.ts).
 */

/** Every review-loop problem code, with the status it answers. */
export const ST_REVIEW_PROBLEM_CODES = [
  /** 409: a review of a card retired by a newer version of its source (its live successor can be reviewed). */
  'MEMO_CARD_RETIRED',
] as const;

/** A review-loop problem code. */
export type StReviewProblemCode = (typeof ST_REVIEW_PROBLEM_CODES)[number];

declare module '../../api/problem' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ProblemCodes extends Record<StReviewProblemCode, true> {}
}
