/**
 * AR-10 named OpenAPI examples of the AI-runs routes: success, needs-info, review-required, failure,
 * 409 (and the 422 of the decisions routes, which keep their own). Given per media type
 * (`content[type].examples`), which src/api/openapi.ts keeps in the document.
 */
import type { z } from 'zod';
import { PROBLEM_MEDIA_TYPE, ProblemSchema } from '../../problem';

const RUN = '7d9f6c2e-3b1a-4c5d-8e9f-0a1b2c3d4e5f';
const COMPANY = '50000000-0000-4000-8000-000000000001';
const versions = {
  backend: 'local/1', agent: 'local-matcher/1', model: 'rules/1', prompt: 'none', contextPack: 'none',
  workflowCatalog: 'hr-catalog/v1', contract: 'ai-run/v1', knowledge: 'none',
};
const base = {
  aiRunId: RUN, companyId: COMPANY, errorMessage: null, locale: 'en', retryCount: 0, maxAttempts: 3, nextAttemptAt: null,
  deadlineAt: '2026-12-01T13:10:00.000Z', createdAt: '2026-12-01T13:00:00.000Z', updatedAt: '2026-12-01T13:00:02.000Z',
};
const attempt = (number: number, status: string, errorCode: string | null, trigger = 'INITIAL') => ({
  attemptId: `0000000${number}-0000-4000-8000-000000000000`, number, status, trigger, errorCode,
  errorMessage: errorCode ? 'AI runtime answered 503' : null, validationErrors: null, requestId: `req-${number}`, traceId: null,
  latencyMs: 412, versions, startedAt: '2026-12-01T13:00:01.000Z', finishedAt: '2026-12-01T13:00:01.412Z',
});
const candidate = (missing: string[], blocked = false) => ({
  candidateId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', attemptNumber: 1, ordinal: 1, taskType: 'EMPLOYMENT_CERTIFICATE',
  title: 'Employment certificate', slots: { purpose: 'visa', dueDate: '2026-12-04' }, missingSlots: missing, confidence: 0.86,
  validationErrors: blocked ? [{ code: 'SENSITIVE_DATA', message: 'a phone number in a field that would be sent', path: 'slots.note' }] : [],
  blocked, status: 'PROPOSED',
});

/** Named examples, OpenAPI's `{ name: { summary, value } }`. */
export const AR_EXAMPLES = {
  accepted: {
    success: { summary: 'Accepted (QUEUED)', value: { aiRunId: RUN, companyId: COMPANY, status: 'QUEUED', version: 1, location: `/api/v1/ai-runs/${RUN}` } },
  },
  retried: {
    success: { summary: 'Retry accepted (RETRYING, attempt 3)', value: { aiRunId: RUN, companyId: COMPANY, status: 'RETRYING', attemptNumber: 3, version: 6, location: `/api/v1/ai-runs/${RUN}` } },
  },
  cancelled: {
    success: { summary: 'Cancelled', value: { aiRunId: RUN, companyId: COMPANY, status: 'FAILED', version: 3, location: `/api/v1/ai-runs/${RUN}` } },
  },
  run: {
    'needs-info': {
      summary: 'SUCCEEDED, outcome NEEDS_INFO (a required slot is missing)',
      value: { ...base, status: 'SUCCEEDED', analysisOutcome: 'NEEDS_INFO', errorCode: null, inputMasked: 'I need an employment certificate, my phone is 010-****-****', attemptCount: 1, version: 3, attempts: [attempt(1, 'SUCCEEDED', null)], candidates: [candidate(['dueDate'])] },
    },
    'review-required': {
      summary: 'SUCCEEDED, outcome REVIEW_REQUIRED (ambiguous, or a guard blocked a candidate)',
      value: { ...base, status: 'SUCCEEDED', analysisOutcome: 'REVIEW_REQUIRED', errorCode: null, inputMasked: 'certificate for my visa by Friday, call 010-****-****', attemptCount: 2, version: 5, attempts: [attempt(1, 'FAILED', 'RUNTIME_UNAVAILABLE'), attempt(2, 'SUCCEEDED', null, 'AUTO_RETRY')], candidates: [candidate([], true)] },
    },
    failure: {
      summary: 'FAILED: the runtime answer failed re-validation (terminal)',
      value: { ...base, status: 'FAILED', analysisOutcome: null, errorCode: 'SCHEMA_VIOLATION', errorMessage: 'the runtime answer failed re-validation', inputMasked: 'Payroll correction for November', attemptCount: 1, version: 3, attempts: [{ ...attempt(1, 'FAILED', 'SCHEMA_VIOLATION'), validationErrors: [{ path: 'candidates.0.confidence', message: 'expected number' }] }], candidates: [] },
    },
    queued: {
      summary: 'QUEUED, readable at once',
      value: { ...base, status: 'QUEUED', analysisOutcome: null, errorCode: null, inputMasked: 'Leave request', attemptCount: 0, version: 1, attempts: [], candidates: [] },
    },
  },
  problems: {
    missingKey: { summary: 'No Idempotency-Key', value: { type: 'urn:problem:idempotency-key-missing', title: 'Idempotency Key Missing', status: 400, code: 'IDEMPOTENCY_KEY_MISSING', detail: 'this operation needs an Idempotency-Key header' } },
    keyConflict: {
      summary: '409: the key was used with another payload',
      value: { type: 'urn:problem:idempotency-key-conflict', title: 'Idempotency Key Conflict', status: 409, code: 'IDEMPOTENCY_KEY_CONFLICT', detail: 'the Idempotency-Key was used with another request: text differs', errors: [{ path: 'body.text', message: 'differs from the first request with this key' }] },
    },
    notRetryable: { summary: '409: only a FAILED run can be retried', value: { type: 'urn:problem:ai-run-not-retryable', title: 'Ai Run Not Retryable', status: 409, code: 'AI_RUN_NOT_RETRYABLE', detail: 'the run is SUCCEEDED; only a FAILED run can be retried' } },
    retryWindowClosed: { summary: '409: the retry window has closed', value: { type: 'urn:problem:ai-run-retry-window-closed', title: 'Ai Run Retry Window Closed', status: 409, code: 'AI_RUN_RETRY_WINDOW_CLOSED', detail: 'the retry window of this run has closed; make a new request instead' } },
    retryUnavailable: { summary: '503: Temporal is unavailable; the run is FAILED as it was', value: { type: 'urn:problem:workflow-start-unavailable', title: 'Workflow Start Unavailable', status: 503, code: 'WORKFLOW_START_UNAVAILABLE', detail: 'Temporal is unavailable: the run was not retried and is FAILED as before; retry the same request (same Idempotency-Key) after Retry-After' } },
    notCancellable: { summary: '409: the run is finished', value: { type: 'urn:problem:ai-run-not-cancellable', title: 'Ai Run Not Cancellable', status: 409, code: 'AI_RUN_NOT_CANCELLABLE', detail: 'the run is SUCCEEDED; only a QUEUED, RUNNING or RETRYING run can be cancelled' } },
  },
} as const;

/** A JSON response with named examples. */
export function exampleContent<S extends z.ZodType>(schema: S, examples: object, description: string) {
  return { description, content: { 'application/json': { schema, examples } } };
}

/** A problem+json response with some of {@link AR_EXAMPLES}.problems. */
export function problemExamples(description: string, names: readonly (keyof typeof AR_EXAMPLES.problems)[]) {
  const examples = Object.fromEntries(names.map((n) => [n, AR_EXAMPLES.problems[n]]));
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemSchema, examples } } };
}
