/**
 * Failure types of the knowledge-scrap family's activities and workflows (SAN-7 … SAN-12), with
 * their retry class. Workflow-safe catalogue.
 */
import { defineFailures } from '../../core/failures';

/** SAN failure types. Every one is deterministic: a retry would read the same rows. */
export const SAN_FAILURES = defineFailures({
  SCRAP_NOT_FOUND: { retry: 'non-retryable', description: 'the job target scrap does not exist' },
  NO_SOURCE_CARDS: { retry: 'non-retryable', description: 'none of the cards the job needs exists any more' },
  NO_CARDS_FOR_DATE: { retry: 'non-retryable', description: 'no knowledge cards on the target date' },
  SUMMARY_NOT_FOUND: { retry: 'non-retryable', description: 'the daily summary (TIL) row does not exist' },
  GENERATION_NOT_FOUND: { retry: 'non-retryable', description: 'the recall-quiz generation row does not exist' },
  COMMIT_NOT_FOUND: { retry: 'non-retryable', description: 'the til_github_commits row does not exist' },
  COMMIT_NOT_ACTIVE: { retry: 'non-retryable', description: 'the commit row is closed; request a new commit' },
  TIL_NOT_READY: { retry: 'non-retryable', description: 'the daily summary has no generated TIL' },
  CONTENT_CHANGED: { retry: 'non-retryable', description: 'the TIL changed after the commit was requested' },
  PATH_TAKEN: { retry: 'non-retryable', description: 'the target path holds other content' },
  GITHUB_ACCOUNT_NOT_LINKED: { retry: 'non-retryable', description: 'the user has no linked GitHub account' },
  GITHUB_TOKEN_UNREADABLE: { retry: 'non-retryable', description: 'the stored token cannot be decrypted (its key was retired)' },
});
