/** Problem codes of the portal-link family's API (PO-1, PO-4 … PO-7), registered with the API. */

/** Every PO link-job and callback problem code (po-data keeps the academic ones in academic-problem-codes.ts). */
export const PO_PROBLEM_CODES = [
  /** PO-1 400: `portalType` names no portal adapter. */
  'PORTAL_TYPE_UNSUPPORTED',
  /** PO-1 409: the user already has an active (QUEUED, RUNNING, POST_PROCESSING) link job for this portal; the answer names it. */
  'PORTAL_LINK_JOB_ACTIVE',
  /** PO-4 409: `/summary` of a job that is not SUCCEEDED; the answer carries its current status. */
  'PORTAL_LINK_JOB_NOT_SUCCEEDED',
  /** PO-5 401: X-Timestamp or X-Signature is absent. */
  'CALLBACK_SIGNATURE_MISSING',
  /** PO-5 401: the signature is malformed or matches none of the callback secrets. */
  'CALLBACK_SIGNATURE_INVALID',
  /** PO-5 401: X-Timestamp is outside the tolerance, in the past or in the future. */
  'CALLBACK_TIMESTAMP_STALE',
  /** PO-6 422: the result's bucket or key lies outside the configured bucket and prefix or outside the job's own scope. */
  'CALLBACK_RESULT_OUT_OF_SCOPE',
  /** PO-5 422: X-Callback-Attempt disagrees with the attempt of the result key. */
  'CALLBACK_ATTEMPT_MISMATCH',
  /** PO-5 409: the job no longer waits for a callback (finished, post-processing, or never started). */
  'CALLBACK_JOB_NOT_ACTIVE',
] as const;

/** A PO problem code. */
export type PoProblemCode = (typeof PO_PROBLEM_CODES)[number];

declare module '../../api/problem' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ProblemCodes extends Record<PoProblemCode, true> {}
}
