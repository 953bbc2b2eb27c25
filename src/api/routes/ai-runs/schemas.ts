/** Zod schemas of the AI-runs routes (AR-1, AR-3, AR-4, AR-10): request bodies, the run view, and the named examples. */
import { z } from 'zod';
import { VISIBLE_TEXT_PATTERN } from '../../../core/blank';
import type { AiRunWithDetails } from '../../../services/ai-runs/runs';
import { aiRunEtag } from '../../../domain/ai-runs/etag';
import { AI_RUN_STATUSES } from '../../../domain/ai-runs/run-state';
import { idempotencyKeyHeaders, RequestWebhookField } from '../../schemas';

/** The `Idempotency-Key` request header, required (parsed by src/core/idempotency.ts: 400 when missing or malformed). */
export const IdempotencyHeaders = idempotencyKeyHeaders({
  required: true,
  description: 'AR-7: the same key and payload answer the same run; another payload → 409 IDEMPOTENCY_KEY_CONFLICT.',
  example: 'c0a8012e-4d1f-4c55-9d8e-1f2a3b4c5d6e',
});

/** Body of `POST /api/v1/ai-runs`. */
export function createBodySchema(maxTextChars: number) {
  return z
    .strictObject({
      companyId: z.uuid({ message: 'must be a UUID' }),
      text: z
        .string()
        .min(1, 'must not be empty or whitespace only')
        .regex(VISIBLE_TEXT_PATTERN, 'must not be empty or whitespace only')
        .refine((s) => Array.from(s).length <= maxTextChars, `at most ${maxTextChars} characters`)
        .describe('the free-text HR request; stored masked with a keyed hash, never in the clear (AR-6)'),
      locale: z.enum(['ko', 'en']).optional(),
      webhook: RequestWebhookField,
    })
    .meta({
      examples: [
        { companyId: '50000000-0000-4000-8000-000000000001', text: 'I need an employment certificate for my visa by Friday, my phone is 010-1234-5678', locale: 'en' },
        { companyId: '50000000-0000-4000-8000-000000000001', text: '다음 주 월요일부터 3일 연차 쓰고 싶습니다', locale: 'ko' },
      ],
    });
}

const Versions = z.object({
  backend: z.string().nullable(),
  agent: z.string().nullable(),
  model: z.string().nullable(),
  prompt: z.string().nullable(),
  contextPack: z.string().nullable(),
  workflowCatalog: z.string().nullable(),
  contract: z.string().nullable(),
  knowledge: z.string().nullable(),
});

const Attempt = z.object({
  attemptId: z.uuid(),
  number: z.number().int(),
  status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED']),
  trigger: z.enum(['INITIAL', 'AUTO_RETRY', 'MANUAL_RETRY']),
  errorCode: z.string().nullable().describe('e.g. RUNTIME_TIMEOUT, RUNTIME_UNAVAILABLE, LEASE_EXPIRED, SCHEMA_VIOLATION, CANCELLED'),
  errorMessage: z.string().nullable(),
  validationErrors: z.array(z.object({ path: z.string(), message: z.string() })).nullable().describe('AR-9: why the answer was refused'),
  requestId: z.string(),
  traceId: z.string().nullable(),
  latencyMs: z.number().int().nullable(),
  versions: Versions,
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});

const Candidate = z.object({
  candidateId: z.uuid(),
  attemptNumber: z.number().int(),
  ordinal: z.number().int(),
  taskType: z.string(),
  title: z.string(),
  slots: z.record(z.string(), z.unknown()),
  missingSlots: z.array(z.string()),
  confidence: z.number(),
  validationErrors: z.array(z.object({ code: z.string(), message: z.string(), path: z.string().optional() })).describe('AR-9 guard findings'),
  blocked: z.boolean().describe('AR-9: never becomes a Task automatically'),
  status: z.enum(['PROPOSED', 'ADOPTED', 'DISCARDED']),
});

/** AR-3 the run as `GET /api/v1/ai-runs/{aiRunId}` shows it. */
export const AiRunSchema = z
  .object({
    aiRunId: z.uuid(),
    companyId: z.uuid(),
    status: z.enum(AI_RUN_STATUSES).describe('technical status (AR-3)'),
    analysisOutcome: z.enum(['NEEDS_INFO', 'REVIEW_REQUIRED']).nullable().describe('null until SUCCEEDED (AR-3)'),
    errorCode: z.string().nullable(),
    errorMessage: z.string().nullable(),
    inputMasked: z.string(),
    locale: z.string().nullable(),
    attemptCount: z.number().int(),
    retryCount: z.number().int(),
    maxAttempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    deadlineAt: z.string().nullable(),
    version: z.number().int().describe('optimistic lock; the ETag is "ai-run-<id>-v<version>"'),
    createdAt: z.string(),
    updatedAt: z.string(),
    attempts: z.array(Attempt),
    candidates: z.array(Candidate),
  })
  .meta({ id: 'AiRun' });

/** Answer of the commands (202): the run id, its status now and where to read it. */
export const AiRunAcceptedSchema = z
  .object({
    aiRunId: z.uuid(),
    companyId: z.uuid(),
    status: z.enum(AI_RUN_STATUSES),
    attemptNumber: z.number().int().optional().describe('retry only: the attempt this retry makes'),
    version: z.number().int(),
    location: z.string(),
  })
  .meta({ id: 'AiRunAccepted' });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The view of a run row with its attempts and candidates. */
export function aiRunView(run: AiRunWithDetails): z.infer<typeof AiRunSchema> {
  return {
    aiRunId: run.id,
    companyId: run.companyId,
    status: run.status,
    analysisOutcome: run.status === 'SUCCEEDED' ? run.analysisOutcome : null,
    errorCode: run.errorCode,
    errorMessage: run.errorMessage,
    inputMasked: run.inputMasked,
    locale: run.locale,
    attemptCount: run.attemptCount,
    retryCount: run.retryCount,
    maxAttempts: run.maxAttempts,
    nextAttemptAt: iso(run.nextAttemptAt),
    deadlineAt: iso(run.deadlineAt),
    version: run.version,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    attempts: run.attempts.map((a) => ({
      attemptId: a.id,
      number: a.number,
      status: a.status,
      trigger: a.trigger,
      errorCode: a.errorCode,
      errorMessage: a.errorMessage,
      validationErrors: (a.validationErrors as { path: string; message: string }[] | null) ?? null,
      requestId: a.requestId,
      traceId: a.traceId,
      latencyMs: a.latencyMs,
      versions: {
        backend: a.backendVersion,
        agent: a.agentVersion,
        model: a.modelVersion,
        prompt: a.promptVersion,
        contextPack: a.contextPackVersion,
        workflowCatalog: a.workflowCatalogVersion,
        contract: a.contractVersion,
        knowledge: a.knowledgeVersion,
      },
      startedAt: a.startedAt.toISOString(),
      finishedAt: iso(a.finishedAt),
    })),
    candidates: run.candidates.map((c) => ({
      candidateId: c.id,
      attemptNumber: c.attempt.number,
      ordinal: c.ordinal,
      taskType: c.taskType,
      title: c.title,
      slots: (c.slots ?? {}) as Record<string, unknown>,
      missingSlots: c.missingSlots,
      confidence: c.confidence,
      validationErrors: (c.validationErrors ?? []) as { code: string; message: string; path?: string }[],
      blocked: c.blocked,
      status: c.status,
    })),
  };
}

/** The run's ETag (strong, quoted): its id and optimistic-lock version (src/domain/ai-runs/etag.ts, shared with If-Match). */
export function aiRunTag(run: { id: string; version: number }): string {
  return aiRunEtag(run.id, run.version);
}
