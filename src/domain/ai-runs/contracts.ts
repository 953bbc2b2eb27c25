/**
 * Contracts of the AI-runs family's workflow (AR-2, AR-4, AR-7, AR-8), shared by the API, the
 * activities and the workflow: its input, the retry signal, the task queue it calls the runtime on,
 * and the workflow ID (DC-1). Workflow-safe: no I/O.
 */
import { defineSignal } from '@temporalio/workflow';
import { idempotentWorkflowId, ownTaskQueue } from '../../core/contracts';

/** The AR job type (search attribute JobType, workflow-ID prefix `ai-run:`). Not an async_jobs job. */
export const AI_RUN_JOB_TYPE = 'AI_RUN';

/** Logical name of the family's own task queue (DC-2), declared by the family's manifest (src/families/ai-runs.ts). */
export const AI_RUNS_QUEUE = 'ai-runs';

/** Task queues a run's workflow uses: projection writes on `jobs`, the runtime call on `aiRuns`. */
export interface AiRunQueues {
  jobs: string;
  aiRuns: string;
}

/** The deployed queues of a run under `prefix` (TEMPORAL_TASK_QUEUE_PREFIX). */
export function aiRunQueues(prefix = ''): AiRunQueues {
  return { jobs: `${prefix}jobs`, aiRuns: ownTaskQueue(AI_RUNS_QUEUE, prefix) };
}

/** DC-1/AR-7: workflow ID of a run, `ai-run:<companyId>:<keyHash>` (SHA-256 of the Idempotency-Key). */
export function aiRunWorkflowId(companyId: string, keyHash: string): string {
  return idempotentWorkflowId(AI_RUN_JOB_TYPE, companyId, keyHash);
}

/** Retry and deadline policy of a run, from config (AI_RUN_*), passed in so the workflow stays config-free. */
export interface AiRunPolicy {
  /** Charged attempts per segment (the first call or a manual retry and its automatic retries). */
  maxAttempts: number;
  /** Per-call deadline (startToCloseTimeout of the runtime activity), ms. */
  callTimeoutMs: number;
  /** A call whose worker stops heartbeating this long ends LEASE_EXPIRED, ms. */
  heartbeatTimeoutMs: number;
  /** Backoff of automatic retries: initial and maximum delay, ms (a Retry-After wins). */
  retryInitialMs: number;
  retryMaxMs: number;
  /** How long a FAILED run's workflow waits for a manual retry before it closes, ms. */
  retryWindowMs: number;
}

/**
 * Input of {@link aiRunWorkflow}. `text` is the raw request: it exists only here (Temporal payloads,
 * encrypted by the payload codec) and, until the workflow started, in the sealed outbox row.
 */
export interface AiRunWorkflowInput {
  runId: string;
  companyId: string;
  userId: string;
  text: string;
  locale: string | null;
  /** Anchor of relative dates ("by Friday"), the run's creation (ISO 8601), the same for every attempt. */
  referenceTime: string;
  /** Overall deadline of the first segment (ISO 8601); a manual retry brings its own. */
  deadlineAt: string;
  queues: AiRunQueues;
  policy: AiRunPolicy;
  /**
   * The run's projection writes (pending input, attempts, answer, failures) are local activities
   * first, with the `jobs` queue activity as their fallback. Inputs without it replay with remote
   * writes.
   */
  localWrites?: true;
}

/** What the workflow returns when the run SUCCEEDED. */
export interface AiRunWorkflowResult {
  runId: string;
  status: 'SUCCEEDED' | 'FAILED';
  attempts: number;
}

/** AR-4 manual retry: attempt `attemptNumber` (MANUAL_RETRY) may begin, with a new deadline (ISO 8601). */
export interface RetryRequest {
  attemptNumber: number;
  deadlineAt: string;
}

/** Signal of a manual retry; idempotent (the highest attempt number wins, a repeat is a no-op). */
export const retryAiRunSignal = defineSignal<[RetryRequest]>('retryAiRun');

/** Attempt trigger (the ai_attempts `trigger` enum). */
export type AttemptTrigger = 'INITIAL' | 'AUTO_RETRY' | 'MANUAL_RETRY';

/** AR-6 version set of one attempt, as the runtime reported it. */
export interface AttemptVersions {
  backend?: string | undefined;
  agent?: string | undefined;
  model?: string | undefined;
  prompt?: string | undefined;
  contextPack?: string | undefined;
  workflowCatalog?: string | undefined;
  contract?: string | undefined;
  knowledge?: string | undefined;
}

/** What the runtime activity returns: the unvalidated answer (validated by `recordAnswer`). */
export interface RuntimeCallResult {
  answer: unknown;
  latencyMs: number;
  versions?: AttemptVersions;
  traceId?: string;
}
