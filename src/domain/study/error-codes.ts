/**
 * ST-4 error codes of a memo-card extraction job and what each one does to the job. Pure, no I/O:
 * safe in workflow code.
 */

/** ST-4 codes stored in study_memo_card_jobs.error_code. */
export const EXTRACTION_ERROR_CODES = ['parse_fail', 'llm_timeout', 'unknown', 'all_dropped', 'no_ready_explanation'] as const;
export type ExtractionErrorCode = (typeof EXTRACTION_ERROR_CODES)[number];

/** Codes of a failed attempt that another attempt may fix: retried while attempts < max_attempts. */
export const RETRIED_CODES: readonly ExtractionErrorCode[] = ['parse_fail', 'llm_timeout', 'unknown'];

/**
 * What a code does to its job (ST-4): `retry` (attempts < max_attempts, else `failed`),
 * `complete` (all_dropped: completed with zero cards, which blocks re-extracting the version) or
 * `skip` (no_ready_explanation: skipped, never retried).
 */
export function extractionOutcome(code: ExtractionErrorCode): 'retry' | 'complete' | 'skip' {
  if (code === 'all_dropped') return 'complete';
  if (code === 'no_ready_explanation') return 'skip';
  return 'retry';
}

/**
 * The ST-4 code of a failed extraction call from the AI boundary's error code (src/ai/types.ts
 * AiErrorCode) or a Temporal timeout: MALFORMED_OUTPUT → parse_fail; TIMEOUT or the call's deadline
 * → llm_timeout; a lost heartbeat (the worker died mid-call) and anything else → unknown.
 */
export function extractionCodeOf(cause: { aiCode?: string | undefined; timeout?: 'deadline' | 'heartbeat' | undefined }): ExtractionErrorCode {
  if (cause.timeout === 'deadline') return 'llm_timeout';
  if (cause.timeout === 'heartbeat') return 'unknown';
  if (cause.aiCode === 'MALFORMED_OUTPUT') return 'parse_fail';
  if (cause.aiCode === 'TIMEOUT') return 'llm_timeout';
  return 'unknown';
}
