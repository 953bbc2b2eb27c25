/**
 * The runtime call of one attempt on the `ai-runs` queue (AR-2, AR-8, DC-2): heartbeats while the
 * call runs (a killed worker's attempt ends LEASE_EXPIRED at the heartbeat timeout), hands the
 * runtime the activity's cancellation signal, and maps the client's errors to catalogued failures
 * whose details carry the attempt's code. Scheduled with `maximumAttempts: 1`: one call per attempt.
 * A failure's message and cause chain are masked (AR-6): Temporal keeps failure messages outside the
 * payload codec, and the worker logs them.
 */
import { failure } from '../../core/failures';
import { withHeartbeat } from '../../core/heartbeat';
import { AR_FAILURES, type RuntimeFailureDetails } from '../../domain/ai-runs/errors';
import { maskError, maskSensitive } from '../../domain/ai-runs/masking';
import type { AiRuntimeCaller, RuntimeCallRequest, RuntimeErrorClassifier } from '../../services/ai-runs/runtime-caller';
import type { RuntimeCallResult } from '../../domain/ai-runs/contracts';

/** Dependencies of {@link createAiRuntimeActivities}. */
export interface AiRuntimeActivityDeps {
  caller: AiRuntimeCaller;
  classify: RuntimeErrorClassifier;
  /** Heartbeat period in ms (default 1000; the heartbeat timeout is AI_RUNTIME_HEARTBEAT_TIMEOUT_MS). */
  heartbeatEveryMs?: number;
}

/** The AR runtime activity. */
export function createAiRuntimeActivities({ caller, classify, heartbeatEveryMs = 1000 }: AiRuntimeActivityDeps) {
  return {
    /**
     * AR-2/AR-8: calls the AI runtime once for attempt `attemptId` and returns the unvalidated
     * answer with its latency (ms). Retryable errors → AI_RUNTIME_RETRYABLE, deterministic ones →
     * AI_RUNTIME_TERMINAL, each with {@link RuntimeFailureDetails}. Idempotency: none needed, the
     * call has no effect the server keeps; never retried by Temporal (one attempt, one call).
     */
    async callAiRuntime(req: RuntimeCallRequest): Promise<RuntimeCallResult> {
      const t0 = performance.now();
      const mapError = (err: unknown) => {
        const info = classify(err);
        const details: RuntimeFailureDetails = {
          code: info.code,
          ...(info.retryAfterMs !== undefined ? { retryAfterMs: info.retryAfterMs } : {}),
          ...(info.outage ? { outage: true } : {}),
        };
        return failure(AR_FAILURES, info.retryable ? 'AI_RUNTIME_RETRYABLE' : 'AI_RUNTIME_TERMINAL', maskSensitive(info.message), {
          cause: maskError(err),
          details: [details],
        });
      };
      const answer = await withHeartbeat((signal) => caller.call(req, signal), mapError, heartbeatEveryMs);
      return {
        answer: answer.answer,
        latencyMs: Math.round(performance.now() - t0),
        ...(answer.versions ? { versions: answer.versions } : {}),
        ...(answer.traceId ? { traceId: answer.traceId } : {}),
      };
    },
  };
}

/** The AR runtime activity's type, for `proxyActivities`. */
export type AiRuntimeActivities = ReturnType<typeof createAiRuntimeActivities>;
