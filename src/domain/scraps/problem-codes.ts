/** Problem codes of the knowledge-scrap family's API (SAN-5 … SAN-12), registered with the API. */

/** Every SAN problem code, for the manifest and the docs. */
export const SAN_PROBLEM_CODES = [
  'TARGET_DATE_IN_FUTURE',
  'NO_CARDS_FOR_DATE',
  'TIL_NOT_GENERATED',
  'TIL_NOT_READY',
  'GITHUB_ACCOUNT_NOT_LINKED',
  'GITHUB_REPOSITORY_NOT_LINKED',
  'GITHUB_TOKEN_REJECTED',
  'GITHUB_REPOSITORY_INACCESSIBLE',
  'GITHUB_UNAVAILABLE',
  'GITHUB_PATH_UNAVAILABLE',
  'GITHUB_BRANCH_NOT_FOUND',
] as const;

/** A SAN problem code. */
export type SanProblemCode = (typeof SAN_PROBLEM_CODES)[number];

declare module '../../api/problem' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ProblemCodes extends Record<SanProblemCode, true> {}
}
