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
 * deadline — while every other failed attempt is.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  TimeoutFailure,
  condition,
  isCancellation,
  proxyActivities,
  patched,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { AiRunActivities } from '../../activities/ai-runs/runs';
import type { AiRuntimeActivities } from '../../activities/ai-runs/runtime';
import { localProjectionOptions, projectionOptions } from '../../core/activity-options';
import { localFirstActivities } from '../core/job-runner';
import { failure } from '../../core/failures';
import { AR_FAILURES, RUN_ERROR_CODES, type RuntimeFailureDetails } from '../../domain/ai-runs/errors';
import {
  retryAiRunSignal,
  type AiRunWorkflowInput,
  type AiRunWorkflowResult,
  type AttemptTrigger,
  type RetryRequest,
} from '../../domain/ai-runs/contracts';

/** `patched()` ID of the run's local-first projection writes (issue 7 §1 (b); see aiRunWorkflow). */
export const AI_RUN_LOCAL_WRITES_PATCH = 'ai-run-local-writes';

/** How one failed call is handled. */
interface CallFailure {
  code: string;
  message: string;
  retryable: boolean;
  outage: boolean;
  retryAfterMs?: number | undefined;
}

/** Maps the runtime activity's failure to the attempt's code and retry class. */
export function classifyCallFailure(err: unknown): CallFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) {
    if (cause.timeoutType === 'HEARTBEAT') {
      return { code: RUN_ERROR_CODES.LEASE_EXPIRED, message: 'the worker running the call stopped heartbeating', retryable: true, outage: false };
    }
    return { code: RUN_ERROR_CODES.RUNTIME_TIMEOUT, message: `the call exceeded its deadline (${String(cause.timeoutType)})`, retryable: true, outage: false };
  }
  if (cause instanceof ApplicationFailure) {
    const d = (cause.details?.[0] ?? {}) as Partial<RuntimeFailureDetails>;
    const retryable = cause.type === 'AI_RUNTIME_RETRYABLE' || (cause.type !== 'AI_RUNTIME_TERMINAL' && !cause.nonRetryable);
    return {
      code: d.code ?? (retryable ? 'RUNTIME_ERROR' : 'RUNTIME_REJECTED'),
      message: cause.message,
      retryable,
      outage: d.outage === true,
      retryAfterMs: typeof d.retryAfterMs === 'number' ? d.retryAfterMs : undefined,
    };
  }
  return { code: 'RUNTIME_ERROR', message: err instanceof Error ? err.message : String(err), retryable: true, outage: false };
}

/** Delay before automatic retry `n` (1-based): Retry-After when given, else exponential, capped. */
export function retryDelayMs(n: number, policy: AiRunWorkflowInput['policy'], retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.max(0, retryAfterMs);
  return Math.min(policy.retryMaxMs, policy.retryInitialMs * 2 ** Math.max(0, n - 1));
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
  // Projection writes local-first (issue 7 §1 (b)) in runs started by this code (`localWrites`) AND
  // run by this code (the patch marker): an older start, or a newer start that an older worker ran,
  // scheduled them on the `jobs` queue and replays that way, whatever the order of the rollout.
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

  const attemptLoop = async (first: number, firstTrigger: AttemptTrigger): Promise<SegmentEnd> => {
    let number = first;
    let trigger = firstTrigger;
    let charged = 0;
    let failures = 0;
    for (;;) {
      const begin = await runs.beginAttempt({ runId: input.runId, number, trigger });
      if (!begin.proceed || !begin.attemptId) return { status: begin.status === 'FAILED' ? 'FAILED' : 'OTHER', lastNumber: lastBegun, errorCode: begin.errorCode };
      lastBegun = Math.max(lastBegun, number);
      const attemptId = begin.attemptId;
      const t0 = Date.now();
      try {
        const call = await runtime.callAiRuntime({
          runId: input.runId,
          attemptId,
          requestId: begin.requestId,
          attempt: number,
          text: input.text,
          locale: input.locale,
          referenceTime: input.referenceTime,
        });
        const r = await runs.recordAnswer({ runId: input.runId, attemptId, requestId: begin.requestId, text: input.text, referenceTime: input.referenceTime, call });
        return { status: r.status === 'SUCCEEDED' || r.status === 'FAILED' ? r.status : 'OTHER', lastNumber: lastBegun, errorCode: r.errorCode };
      } catch (err) {
        if (isCancellation(err)) throw err;
        if (err instanceof ApplicationFailure || !(err instanceof ActivityFailure)) throw err;
        if (err.activityType !== 'callAiRuntime') throw err; // a projection write failed for good
        const f = classifyCallFailure(err);
        failures += 1;
        if (!f.outage) charged += 1;
        const latencyMs = Date.now() - t0;
        if (f.retryable && charged < input.policy.maxAttempts) {
          const delay = retryDelayMs(failures, input.policy, f.retryAfterMs);
          const r = await runs.failAttempt({
            runId: input.runId, attemptId, code: f.code, message: f.message, latencyMs,
            retryAt: new Date(Date.now() + delay).toISOString(),
          });
          if (r.status !== 'RETRYING') return { status: r.status === 'FAILED' ? 'FAILED' : 'OTHER', lastNumber: lastBegun, errorCode: r.errorCode };
          await sleep(delay);
          number += 1;
          trigger = 'AUTO_RETRY';
          continue;
        }
        const message = f.retryable ? `${f.message} (attempt budget of ${input.policy.maxAttempts} used up)` : f.message;
        const r = await runs.failAttempt({ runId: input.runId, attemptId, code: f.code, message, latencyMs, retryAt: null });
        return { status: r.status === 'FAILED' ? 'FAILED' : 'OTHER', lastNumber: lastBegun, errorCode: r.errorCode };
      }
    }
  };

  /** One segment under its deadline: the attempts race a durable timer. */
  const segment = async (first: number, trigger: AttemptTrigger, deadlineAt: number): Promise<SegmentEnd> => {
    const remaining = deadlineAt - Date.now();
    const deadlineFail = async () => {
      await runs.failRun({ runId: input.runId, code: RUN_ERROR_CODES.DEADLINE_EXCEEDED, message: 'the run deadline passed' });
      return { status: 'FAILED' as const, lastNumber: lastBegun };
    };
    if (remaining <= 0) return deadlineFail();
    const work = new CancellationScope();
    const timer = new CancellationScope();
    const attempts = work.run(() => attemptLoop(first, trigger));
    const expired = timer.run(() => sleep(remaining)).then(() => 'deadline' as const);
    // Both settle later than the race in some paths; mark them handled (the race still sees them).
    attempts.catch(() => undefined);
    expired.catch(() => undefined);
    const winner = await Promise.race([attempts, expired]);
    if (winner !== 'deadline') {
      timer.cancel();
      await expired.catch(() => undefined);
      return winner;
    }
    work.cancel();
    await attempts.catch(() => undefined);
    return deadlineFail();
  };

  try {
    await runs.releasePendingInput({ runId: input.runId });
    let next = 1;
    let trigger: AttemptTrigger = 'INITIAL';
    let deadlineAt = Date.parse(input.deadlineAt);
    for (;;) {
      const end = await segment(next, trigger, deadlineAt);
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
