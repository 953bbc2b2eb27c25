/**
 * What the run's runtime activity needs of the AI runtime (AR-2, AR-8): one call per attempt, no
 * retries of its own, cancellable; and the classification of what a call throws (retryable or
 * terminal, a stable code, the runtime's Retry-After). Built over the AiRuntimeClient in
 * src/services/ai-runs/runtime-adapter.ts.
 */
import type { AttemptVersions } from '../../domain/ai-runs/contracts';
import type { RuntimeFailureDetails } from '../../domain/ai-runs/errors';

/** One call's request. `text` is the raw input (it never leaves the workflow payloads and this call). */
export interface RuntimeCallRequest {
  runId: string;
  attemptId: string;
  requestId: string;
  /** The run's attempt number (1-based). */
  attempt: number;
  text: string;
  locale: string | null;
  /** Anchor of relative dates (ISO 8601), the run's creation. */
  referenceTime: string;
}

/** One call's unvalidated answer and what the runtime said about itself. */
export interface RuntimeCallAnswer {
  answer: unknown;
  versions?: AttemptVersions;
  traceId?: string;
}

/** The AI runtime as the activity calls it. */
export interface ArRuntime {
  /** @throws the adapter's own errors (classified by {@link RuntimeErrorClassifier}). */
  call(req: RuntimeCallRequest, signal: AbortSignal): Promise<RuntimeCallAnswer>;
}

/** A classified call error. */
export interface RuntimeErrorInfo extends RuntimeFailureDetails {
  retryable: boolean;
  message: string;
}

/** Classifies what {@link ArRuntime.call} threw. */
export type RuntimeErrorClassifier = (err: unknown) => RuntimeErrorInfo;
