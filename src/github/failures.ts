/**
 * The GitHub adapter's error vocabulary (SAN-10, SAN-12): its failure types with their retry class
 * and the mapping of the adapter's errors to Temporal failures. The adapter (./client.ts) throws
 * Octokit's RequestError and classifies it; only activities turn it into a Temporal failure, with
 * {@link toGithubFailure}.
 */
import { ApplicationFailure } from '@temporalio/common';
import { defineErrors } from '../core/errors';
import { defineFailures, failure } from '../core/failures';
import { classifyGithubError, isRequestError } from './client';

/** GitHub failure types with their retry class (see `classifyGithubError`). */
export const GITHUB_FAILURES = defineFailures({
  GITHUB_UNAUTHORIZED: { retry: 'non-retryable', description: 'GitHub rejected the access token (401); re-link the account' },
  GITHUB_FORBIDDEN: { retry: 'non-retryable', description: 'the access token may not do this (403)' },
  GITHUB_NOT_FOUND: { retry: 'non-retryable', description: 'not found or not visible to the token (404)' },
  GITHUB_RATE_LIMITED: { retry: 'retryable', description: 'rate limited (429 / secondary limit); waits as long as GitHub asks' },
  GITHUB_CONFLICT: { retry: 'retryable', description: 'stale or missing sha (409/422); re-read and retry' },
  GITHUB_UNAVAILABLE: { retry: 'retryable', description: 'GitHub 5xx, 408 or a network failure' },
  GITHUB_REJECTED: { retry: 'non-retryable', description: 'another 4xx answer' },
});

/** The adapter's vocabulary (in the manifests of the families that call GitHub). */
export const GITHUB_ERRORS = defineErrors({ failures: GITHUB_FAILURES });

/**
 * Converts a GitHub error into a Temporal failure of the right retry class (SAN-10, DC-2): typed by
 * `classifyGithubError` (with `nextRetryDelay` for rate limits), whose cause is typed `RequestError`
 * and carries the status, never headers or the token. Other errors are returned unchanged.
 * `now` in ms since the epoch.
 */
export function toGithubFailure(err: unknown, now = Date.now()): unknown {
  if (!isRequestError(err)) return err;
  const c = classifyGithubError(err, now);
  const cause = ApplicationFailure.create({ message: `HTTP ${c.status}: ${err.message}`, type: 'RequestError', details: [{ status: c.status }] });
  return failure(GITHUB_FAILURES, c.type as keyof typeof GITHUB_FAILURES, c.message, {
    cause,
    nextRetryDelay: c.retryAfterMs,
    details: [{ status: c.status }],
  });
}
