/**
 * The AI provider adapter's error vocabulary (SAN-7 … SAN-12, ST-4): each {@link AiErrorCode}
 * becomes the Temporal failure type `AI_<code>`. The adapter throws AiProviderError; only activities
 * map it, with {@link toAiFailure}. Workflow-safe.
 */
import { defineErrors } from '../core/errors';
import { defineFailures, failure, type FailureSpec } from '../core/failures';
import { AiProviderError, type AiErrorCode } from './types';

/** `AI_<code>` → retry class (the adapters set AiProviderError.retryable by the same rule). */
export const AI_FAILURES = defineFailures({
  AI_RATE_LIMITED: { retry: 'retryable', description: 'the provider asked to slow down (429); its Retry-After is the next delay' },
  AI_TIMEOUT: { retry: 'retryable', description: 'the provider did not answer in time' },
  AI_UPSTREAM_UNAVAILABLE: { retry: 'retryable', description: 'the provider is down (5xx, connection refused)' },
  AI_MALFORMED_OUTPUT: { retry: 'retryable', description: 'the answer failed its schema; a new sample may pass' },
  AI_INVALID_EMBEDDING: { retry: 'non-retryable', description: 'the embedding has the wrong length or non-finite values' },
  AI_BAD_REQUEST: { retry: 'non-retryable', description: 'the provider rejected the request (4xx)' },
  AI_UNAUTHORIZED: { retry: 'non-retryable', description: 'the provider rejected the credentials (401/403)' },
  AI_CONFIG: { retry: 'non-retryable', description: 'the AI provider is misconfigured (missing key, unknown model)' },
} satisfies Record<`AI_${AiErrorCode}`, FailureSpec>);

/** The adapter's vocabulary (in the manifests of the families that call the AI provider). */
export const AI_ERRORS = defineErrors({ failures: AI_FAILURES });

/**
 * Converts an AI boundary error into the Temporal failure of its type (retry class from the
 * catalogue, the provider's Retry-After as next delay). Other errors are returned unchanged.
 */
export function toAiFailure(err: unknown): unknown {
  if (!(err instanceof AiProviderError)) return err;
  return failure(AI_FAILURES, `AI_${err.code}`, err.message, { cause: err, nextRetryDelay: err.retryAfterMs });
}
