/**
 * Problem codes of the AR decision and reading routes (AR-5): `POST …/candidate-decisions`, the
 * Tasks and the per-company list of runs. The generic ones they also answer live with their shared
 * modules: PRECONDITION_REQUIRED / PRECONDITION_FAILED (src/api/if-match.ts), INVALID_CURSOR
 * (src/api/pagination.ts).
 */

/** Every AR decision problem code, with the status it answers. */
export const AR_DECISION_PROBLEM_CODES = [
  /** 409: the body `version` is not the run's current version; nothing applied. */
  'AI_RUN_VERSION_CONFLICT',
  /** 400: `If-Match` and the body `version` name different versions. */
  'CONFLICTING_PRECONDITIONS',
  /** 422: the run is not SUCCEEDED, so its candidates cannot be decided. */
  'AI_RUN_NOT_SUCCEEDED',
  /** 422: a candidate id that is not a candidate of this run. */
  'CANDIDATE_NOT_IN_RUN',
  /** 422: ADOPT of a candidate already discarded (a discard is final). */
  'CANDIDATE_ALREADY_DISCARDED',
  /** 422: DISCARD of a candidate already adopted (its Task exists). */
  'CANDIDATE_ALREADY_ADOPTED',
  /** 422: a candidate of an earlier attempt than the run's latest one. */
  'CANDIDATE_SUPERSEDED',
  /** 422: ADOPT of a candidate the AR-9 guards blocked (lost key value or sensitive data). */
  'CANDIDATE_BLOCKED',
] as const;

/** An AR decision problem code. */
export type ArDecisionProblemCode = (typeof AR_DECISION_PROBLEM_CODES)[number];

declare module '../../api/problem' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ProblemCodes extends Record<ArDecisionProblemCode, true> {}
}
