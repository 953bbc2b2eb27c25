/** Problem codes of the AI-runs family's API (AR-1 … AR-7), registered with the API. */

/** Every AR problem code (the decisions routes keep theirs in decision-problem-codes.ts). */
export const AR_PROBLEM_CODES = [
  /** AR-4: the run is not FAILED (or was cancelled), so it cannot be retried. */
  'AI_RUN_NOT_RETRYABLE',
  /** The run is already SUCCEEDED or FAILED, so it cannot be cancelled. */
  'AI_RUN_NOT_CANCELLABLE',
] as const;

/** An AR problem code. */
export type ArProblemCode = (typeof AR_PROBLEM_CODES)[number];

declare module '../../api/problem' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ProblemCodes extends Record<ArProblemCode, true> {}
}
