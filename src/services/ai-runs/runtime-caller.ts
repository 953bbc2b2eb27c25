/**
 * The runtime activity's port to the AI runtime (AR-2, AR-8), {@link AiRuntimeCaller}: one call per
 * attempt, no retries of its own, cancellable; and the classification of what a call throws
 * (retryable or terminal, a stable code, the runtime's Retry-After, and whether it is an outage:
 * unreachable / 5xx, waited out and not charged). Built here over the configured
 * {@link AiRuntimeClient} (`local` or `http`, src/services/ai-runs/runtime-client).
 */
import type { AiRunsConfig as Config } from '../../config/ai-runs';
import { WORKFLOW_CATALOG_VERSION } from '../../domain/ai-runs/catalog';
import type { AttemptVersions } from '../../domain/ai-runs/contracts';
import type { RuntimeFailureDetails } from '../../domain/ai-runs/errors';
import {
  AiRuntimeCallError,
  createAiRuntimeClient,
  RuntimeRejectedError,
  textContains,
  type AiRuntimeClient,
} from './runtime-client';

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

/** The AI runtime as the runtime activity calls it: once per attempt. */
export interface AiRuntimeCaller {
  /** @throws the client's own errors (classified by {@link RuntimeErrorClassifier}). */
  call(req: RuntimeCallRequest, signal: AbortSignal): Promise<RuntimeCallAnswer>;
}

/** A classified call error. */
export interface RuntimeErrorInfo extends RuntimeFailureDetails {
  retryable: boolean;
  message: string;
}

/** Classifies what {@link AiRuntimeCaller.call} threw. */
export type RuntimeErrorClassifier = (err: unknown) => RuntimeErrorInfo;

/** The runtime client of `config.aiRuns` (demo faults of the local runtime applied). */
export function runtimeClientFromConfig(config: Config): AiRuntimeClient {
  const a = config.aiRuns;
  if (a.runtime === 'http') return createAiRuntimeClient({ kind: 'http', baseUrl: a.runtimeUrl });
  const base = createAiRuntimeClient({
    kind: 'local',
    ...(a.faults.failFirstMarker ? { failFirstAttemptWhen: textContains(a.faults.failFirstMarker) } : {}),
  });
  const reject = a.faults.rejectFirstMarker;
  if (!reject) return base;
  return {
    kind: base.kind,
    async analyze(request, options) {
      if (request.attempt === 1 && request.text.includes(reject)) {
        throw new RuntimeRejectedError('local runtime: simulated rejection of the first attempt (AI_RUNTIME_REJECT_FIRST_MARKER)', { latencyMs: 0, status: 422 });
      }
      return base.analyze(request, options);
    },
  };
}

/** {@link AiRuntimeCaller} over an AiRuntimeClient: one `analyze` per call, deadline `callTimeoutMs`. */
export function aiRuntimeCallerOf(client: AiRuntimeClient, callTimeoutMs: number): AiRuntimeCaller {
  return {
    async call(req, signal) {
      const result = await client.analyze(
        {
          requestId: req.requestId,
          text: req.text,
          ...(req.locale === 'ko' || req.locale === 'en' ? { locale: req.locale } : {}),
          workflowCatalogVersion: WORKFLOW_CATALOG_VERSION,
          referenceTime: req.referenceTime,
          attempt: req.attempt,
        },
        { requestId: req.requestId, deadlineMs: callTimeoutMs, signal },
      );
      return { answer: result.raw };
    },
  };
}

/** AR-7 classification of a call error (anything not an AiRuntimeCallError is a retryable RUNTIME_ERROR). */
export const classifyRuntimeError: RuntimeErrorClassifier = (err) => {
  if (err instanceof AiRuntimeCallError) {
    return {
      code: err.code,
      retryable: err.retryable,
      message: err.message,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
      ...(err.code === 'RUNTIME_UNAVAILABLE' ? { outage: true } : {}),
    };
  }
  return { code: 'RUNTIME_ERROR', retryable: true, message: err instanceof Error ? err.message : String(err) };
};
