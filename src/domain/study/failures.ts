/**
 * Failure types of the study family's activities and workflows (ST-1 … ST-6), with their retry
 * class. Workflow-safe catalogue.
 */
import { defineFailures } from '../../core/failures';

/** ST failure types. */
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
