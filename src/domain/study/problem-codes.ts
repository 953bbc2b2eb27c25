/** Problem codes of the study family's API (ST-1 … ST-6), registered with the API. */

/** Every ST problem code, for the manifest and the docs. */
export const ST_PROBLEM_CODES = ['STUDY_TOPIC_NOT_FOUND', 'STUDY_EXPLANATION_NOT_READY', 'STUDY_SOURCE_NOT_FOUND'] as const;

/** An ST problem code. */
export type StProblemCode = (typeof ST_PROBLEM_CODES)[number];

declare module '../../api/problem' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ProblemCodes extends Record<StProblemCode, true> {}
}
