/**
 * The runtime activity's view of the AI runtime client (AR-2, AR-8): builds the configured
 * AiRuntimeClient (`local` or `http`, src/services/ai-runs/runtime), makes one `analyze` call per attempt
 * with the per-call deadline, and classifies what it throws: retryable or terminal, the stable code,
 * Retry-After, and whether it is an outage (unreachable / 5xx: waited out, not charged).
 */
import type { AiRunsConfig as Config } from '../../config/ai-runs';
import { WORKFLOW_CATALOG_VERSION } from '../../domain/ai-runs/catalog';
import {
  AiRuntimeCallError,
  createAiRuntimeClient,
  RuntimeRejectedError,
  textContains,
  type AiRuntimeClient,
} from './runtime';
import type { ArRuntime, RuntimeErrorClassifier } from './runtime-port';

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

/** {@link ArRuntime} over an AiRuntimeClient: one `analyze` per call, deadline `callTimeoutMs`. */
export function arRuntimeOf(client: AiRuntimeClient, callTimeoutMs: number): ArRuntime {
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
