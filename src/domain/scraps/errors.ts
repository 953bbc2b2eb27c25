/**
 * The knowledge-scrap family's error vocabulary (SAN-5 … SAN-12): the failure types of its
 * activities and workflows with their retry class, and the problem codes of its routes and services
 * with their HTTP status. Its jobs are async_jobs jobs, whose rows keep an error message and no
 * code of their own. Workflow-safe, no I/O.
 */
import { defineErrors } from '../../core/errors';
import { defineFailures } from '../../core/failures';
import { defineProblems } from '../../core/problems';

/** Failure types. Every one is deterministic: a retry would read the same rows. */
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

/** Problem codes. */
export const SAN_PROBLEMS = defineProblems({
  TARGET_DATE_IN_FUTURE: { status: 400, description: "SAN-8: the TIL's target date is after the user's today" },
  NO_CARDS_FOR_DATE: { status: 422, description: 'SAN-8: no knowledge cards on the target date' },
  TIL_NOT_GENERATED: { status: 409, title: 'TIL Not Generated', description: 'SAN-9: the TIL has not been generated yet' },
  TIL_NOT_READY: { status: 400, title: 'TIL Not Ready', description: 'SAN-10: the TIL to commit has not been generated yet' },
  GITHUB_ACCOUNT_NOT_LINKED: { status: 400, title: 'GitHub Account Not Linked', description: 'SAN-10, SAN-12: link a GitHub account first' },
  GITHUB_REPOSITORY_NOT_LINKED: { status: 400, title: 'GitHub Repository Not Linked', description: 'SAN-10: link a repository first' },
  GITHUB_TOKEN_REJECTED: {
    status: 422,
    title: 'GitHub Token Rejected',
    description: 'SAN-10: GitHub rejected the linked token (401), or the stored token cannot be decrypted; link the account again',
  },
  GITHUB_REPOSITORY_INACCESSIBLE: {
    status: 400,
    title: 'GitHub Repository Inaccessible',
    description: 'SAN-10: the repository is missing, or the linked token may not read or push to it',
  },
  GITHUB_UNAVAILABLE: { status: 503, title: 'GitHub Unavailable', description: 'SAN-10: GitHub cannot be reached or is rate limiting' },
  GITHUB_PATH_UNAVAILABLE: {
    status: 409,
    otherStatuses: [503],
    title: 'Path Unavailable',
    description: 'SAN-10: every candidate file name is taken (409), or concurrent requests kept taking the free one (503, retry)',
  },
  GITHUB_BRANCH_NOT_FOUND: { status: 422, title: 'GitHub Branch Not Found', description: 'SAN-10: the repository has no such branch' },
});

/** The family's vocabulary (manifest `errors`). */
export const SAN_ERRORS = defineErrors({ failures: SAN_FAILURES, problems: SAN_PROBLEMS });
