/**
 * AR-2/AR-4/AR-7/AR-8 the durable AI run: one workflow per run, ID `ai-run:<companyId>:<keyHash>`.
 * Each attempt is an ai_attempts row created before the call; the call is ONE activity on the
 * `ai-runs` queue with `maximumAttempts: 1` (the server retries by making a new attempt, so the
 * runtime sees exactly one call per attempt); its answer is re-validated before candidates are
 * stored. Retryable errors → RETRYING with nextAttemptAt and a durable timer (Retry-After honoured),
 * within the attempt budget; terminal errors → FAILED at once; the overall deadline → FAILED
 * DEADLINE_EXCEEDED; a worker killed mid-call → heartbeat timeout, the attempt ends LEASE_EXPIRED and
 * the run goes on. A FAILED run's workflow waits (retry window) for a manual retry signal (AR-4);
 * cancellation → FAILED CANCELLED. All writes are guarded transitions (DC-3).
 *
 * Attempt accounting (AR-8 and the outage rule): every attempt is a row and a call, numbered; an
 * attempt that failed because the runtime was unreachable or overloaded (503, connection refused:
 * details `outage`) is not charged to the budget — such outages are waited out, bounded by the run
 * deadline — while every other failed attempt is. The attempts run on the core attempt ledger
 * (src/core/attempts.ts) with this family's hooks and codes ({@link RUNTIME_CALL_FAILURES}).
 */
import { CancellationScope, condition, isCancellation, patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { AiRunActivities } from '../../activities/ai-runs/runs';
import type { AiRuntimeActivities } from '../../activities/ai-runs/runtime-call';
import { localProjectionOptions, projectionOptions } from '../../core/activity-options';
import { runAttempts, type FailedAttempt, type FailureVocabulary } from '../../core/attempts';
import { localFirstActivities } from '../core/job-runner';
import { failure } from '../../core/failures';
import { AR_FAILURES, RUN_ERROR_CODES } from '../../domain/ai-runs/errors';
import {
  retryAiRunSignal,
  type AiRunWorkflowInput,
  type AiRunWorkflowResult,
  type AttemptTrigger,
  type RetryRequest,
  type RuntimeCallResult,
} from '../../domain/ai-runs/contracts';

/** `patched()` ID of the run's local-first projection writes (see aiRunWorkflow). */
export const AI_RUN_LOCAL_WRITES_PATCH = 'ai-run-local-writes';

/**
 * `patched()` ID of the first attempt's begin that also drops the sealed input (one projection
 * write, one local activity, instead of `releasePendingInput` and then `beginAttempt`).
 */
export const AI_RUN_BEGIN_RELEASES_INPUT_PATCH = 'ai-run-begin-releases-input';

/**
 * AR-7 codes of a failed runtime call: the activity's code travels in `details[0]`
 * (RuntimeFailureDetails, with its Retry-After and outage flag); a call thrown
 * non-retryable (AI_RUNTIME_TERMINAL) fails the run at once.
 */
export const RUNTIME_CALL_FAILURES: FailureVocabulary<string> = {
  subject: 'call',
  leaseExpired: RUN_ERROR_CODES.LEASE_EXPIRED,
  deadline: RUN_ERROR_CODES.RUNTIME_TIMEOUT,
  unknown: 'RUNTIME_ERROR',
  application: (f) => ({ code: f.code ?? (f.nonRetryable ? 'RUNTIME_REJECTED' : 'RUNTIME_ERROR'), terminal: f.nonRetryable }),
};

/** The begun attempt's row and the runtime request ID its call carries. */
interface BegunAttempt {
  attemptId: string;
  requestId: string;
}

/** End of one segment (the first call or a manual retry, with its automatic retries). */
interface SegmentEnd {
  status: 'SUCCEEDED' | 'FAILED' | 'OTHER';
  lastNumber: number;
  /** The run's error code when FAILED (CANCELLED: the caller stopped it, no retry will come). */
  errorCode?: string | null;
}

/**
 * The run's workflow (see the module comment). Returns when the run SUCCEEDED; throws AI_RUN_FAILED
 * (non-retryable) when it is FAILED and the retry window passed, so operators find failed runs with
 * `ExecutionStatus="Failed"`; a cancelled run's workflow ends Cancelled.
 */
export async function aiRunWorkflow(input: AiRunWorkflowInput): Promise<AiRunWorkflowResult> {
  // Local-first only with both `localWrites` and the patch marker: a history lacking either has its
  // writes on the `jobs` queue and replays that way, whatever the order of the deployment.
  const runs = localFirstActivities<AiRunActivities>(
    input.localWrites === true && patched(AI_RUN_LOCAL_WRITES_PATCH),
    proxyLocalActivities<AiRunActivities>(localProjectionOptions()),
    proxyActivities<AiRunActivities>(projectionOptions(input.queues.jobs)),
  );
  const runtime = proxyActivities<AiRuntimeActivities>({
    taskQueue: input.queues.aiRuns,
    startToCloseTimeout: input.policy.callTimeoutMs,
    heartbeatTimeout: input.policy.heartbeatTimeoutMs,
    retry: { maximumAttempts: 1 }, // AR-8: never a transparent retry
  });
  let requested: RetryRequest | undefined;
  /** Highest attempt number this workflow began (the row's attempt_count). */
  let lastBegun = 0;
  setHandler(retryAiRunSignal, (r) => {
    if (!requested || r.attemptNumber > requested.attemptNumber) requested = r;
  });

  /** A segment's end from the projection's answer `r`: its status when one of `ends`, else OTHER. */
  const endOf = (r: { status: string; errorCode?: string | null | undefined }, ends: readonly SegmentEnd['status'][] = ['FAILED']): SegmentEnd => ({
    status: ends.find((e) => e === r.status) ?? 'OTHER',
    lastNumber: lastBegun,
    errorCode: r.errorCode,
  });
  const failAttempt = (f: FailedAttempt<BegunAttempt, string>, message: string, retryAt: string | null) =>
    runs.failAttempt({ runId: input.runId, attemptId: f.begun.attemptId, code: f.failure.code, message, latencyMs: f.latencyMs, retryAt });

  /**
   * One segment (the first call or a manual retry, with its automatic retries) under its deadline;
   * `releaseInput`: the segment's first begin drops the sealed input too.
   */
  const segment = (first: number, trigger: AttemptTrigger, deadlineAt: number, releaseInput = false): Promise<SegmentEnd> =>
    runAttempts<BegunAttempt, RuntimeCallResult, SegmentEnd, string>({
      first,
      vocabulary: RUNTIME_CALL_FAILURES,
      begin: async ({ number, retry }) => {
        const begin = await runs.beginAttempt({ runId: input.runId, number, trigger: retry ? 'AUTO_RETRY' : trigger, ...(releaseInput && !retry ? { releaseInput: true } : {}) });
        if (!begin.proceed || !begin.attemptId) return { end: endOf(begin) };
        lastBegun = Math.max(lastBegun, number);
        return { begun: { attemptId: begin.attemptId, requestId: begin.requestId }, budget: input.policy.maxAttempts };
      },
      call: (begun, number) =>
        runtime.callAiRuntime({
          runId: input.runId,
          attemptId: begun.attemptId,
          requestId: begun.requestId,
          attempt: number,
          text: input.text,
          locale: input.locale,
          referenceTime: input.referenceTime,
        }),
      succeed: async (begun, call) =>
        endOf(await runs.recordAnswer({ runId: input.runId, attemptId: begun.attemptId, requestId: begun.requestId, text: input.text, referenceTime: input.referenceTime, call }), ['SUCCEEDED', 'FAILED']),
      retrying: async (f) => {
        const r = await failAttempt(f, f.failure.message, new Date(Date.now() + f.retryInMs).toISOString());
        return r.status === 'RETRYING' ? undefined : endOf(r);
      },
      ended: async (f) => {
        const message = f.last === 'budget-used' ? `${f.failure.message} (attempt budget of ${input.policy.maxAttempts} used up)` : f.failure.message;
        return endOf(await failAttempt(f, message, null));
      },
      retryBackoff: { initialMs: input.policy.retryInitialMs, maxMs: input.policy.retryMaxMs, honourRetryAfter: true },
      // AR-8: every attempt is a row and a call, so an outage makes a new (uncharged) attempt.
      outages: { repeat: 'next-attempt' },
      deadline: {
        at: deadlineAt,
        expired: async () => {
          await runs.failRun({ runId: input.runId, code: RUN_ERROR_CODES.DEADLINE_EXCEEDED, message: 'the run deadline passed' });
          return { status: 'FAILED', lastNumber: lastBegun };
        },
      },
    });

  try {
    // A history without the marker released the input in a write of its own before the first begin.
    let releaseInput = patched(AI_RUN_BEGIN_RELEASES_INPUT_PATCH);
    if (!releaseInput) await runs.releasePendingInput({ runId: input.runId });
    let next = 1;
    let trigger: AttemptTrigger = 'INITIAL';
    let deadlineAt = Date.parse(input.deadlineAt);
    for (;;) {
      const end = await segment(next, trigger, deadlineAt, releaseInput);
      releaseInput = false;
      if (end.status === 'SUCCEEDED') return { runId: input.runId, status: 'SUCCEEDED', attempts: end.lastNumber };
      if (end.errorCode === RUN_ERROR_CODES.CANCELLED) {
        // Cancelled through the API while its cancel request did not reach us: no retry will come.
        throw failure(AR_FAILURES, 'AI_RUN_FAILED', `AI run ${input.runId} was cancelled`);
      }
      // FAILED (or closed by someone else): wait for a manual retry of the next attempt (AR-4).
      const want = end.lastNumber + 1;
      const got = await condition(() => requested !== undefined && requested.attemptNumber >= want, input.policy.retryWindowMs);
      if (!got || !requested) {
        throw failure(AR_FAILURES, 'AI_RUN_FAILED', `AI run ${input.runId} ended FAILED after ${end.lastNumber} attempts`);
      }
      next = requested.attemptNumber;
      trigger = 'MANUAL_RETRY';
      deadlineAt = Date.parse(requested.deadlineAt);
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        runs.failRun({ runId: input.runId, code: RUN_ERROR_CODES.CANCELLED, message: 'the run was cancelled' }),
      );
    }
    throw err;
  }
}
