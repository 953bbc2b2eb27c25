/**
 * The study family's error vocabulary (ST-1 … ST-6): the failure types of its activities and
 * workflows with their retry class, the ST-4 error codes of a memo-card extraction job
 * (`study_memo_card_jobs.error_code`) with what each does to the job, and the problem codes of its
 * routes and services with their HTTP status. Workflow-safe, no I/O.
 */
import { defineErrors } from '../../core/errors';
import { defineFailures } from '../../core/failures';
import { defineProblems } from '../../core/problems';

/** Failure types. */
export const ST_FAILURES = defineFailures({
  STUDY_QUESTION_NOT_FOUND: { retry: 'non-retryable', description: 'the study question of the job does not exist' },
  STUDY_JOB_NOT_FOUND: { retry: 'non-retryable', description: 'the study_memo_card_jobs row does not exist' },
  STUDY_EXTRACTION_FAILED: {
    retry: 'non-retryable',
    description: 'a memo-card extraction job ended failed (its attempts are used up); the row holds the ST-4 error code',
  },
  STUDY_EXTRACTION_ATTEMPT_FAILED: {
    retry: 'non-retryable',
    description: 'one extraction attempt failed with an ST-4 code (details[0].code); the workflow decides on a new attempt, never Temporal',
  },
});

/**
 * ST-4 codes of an extraction job and what each does to it: `retry` (another attempt while
 * attempts < max_attempts, else `failed`), `complete` (completed with zero cards, which blocks
 * re-extracting the version) or `skip` (skipped, never retried).
 */
export const ST_ROW_CODES = {
  parse_fail: { outcome: 'retry', description: 'the model answer did not parse as memo cards' },
  llm_timeout: { outcome: 'retry', description: 'the model call exceeded its deadline' },
  unknown: { outcome: 'retry', description: 'any other failure of the attempt (a lost heartbeat included)' },
  all_dropped: { outcome: 'complete', description: 'every extracted card was dropped by the guards' },
  no_ready_explanation: { outcome: 'skip', description: 'the source has no ready explanation to extract from' },
} as const satisfies Record<string, { outcome: 'retry' | 'complete' | 'skip'; description: string }>;

/** An ST-4 code stored in study_memo_card_jobs.error_code. */
export type ExtractionErrorCode = keyof typeof ST_ROW_CODES;

/** Every ST-4 code. */
export const EXTRACTION_ERROR_CODES = Object.keys(ST_ROW_CODES) as readonly ExtractionErrorCode[];

/** Codes of a failed attempt that another attempt may fix: retried while attempts < max_attempts. */
export const RETRIED_CODES: readonly ExtractionErrorCode[] = EXTRACTION_ERROR_CODES.filter((c) => ST_ROW_CODES[c].outcome === 'retry');

/** What a code does to its job (ST-4), see {@link ST_ROW_CODES}. */
export function extractionOutcome(code: ExtractionErrorCode): 'retry' | 'complete' | 'skip' {
  return ST_ROW_CODES[code].outcome;
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

/** Problem codes (the generic ones the routes also answer are the core's). */
export const ST_PROBLEMS = defineProblems({
  STUDY_TOPIC_NOT_FOUND: { status: 404, description: "the topic does not exist or is not the caller's" },
  STUDY_SOURCE_NOT_FOUND: { status: 404, description: "the question (or its version) does not exist or is not the caller's" },
  STUDY_EXPLANATION_NOT_READY: { status: 409, description: 'ST-1: the source has no explanation yet to extract memo cards from' },
  MEMO_CARD_RETIRED: {
    status: 409,
    description: 'a review of a card retired by a newer version of its source (its live successor can be reviewed)',
  },
});

/** The family's vocabulary (manifest `errors`). */
export const ST_ERRORS = defineErrors({ failures: ST_FAILURES, problems: ST_PROBLEMS, rowCodes: ST_ROW_CODES });
