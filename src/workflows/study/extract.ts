/**
 * ST-4 … ST-6 the memo-card extraction of ONE source version, workflow ID
 * `study-card-extract:<kind>:<id>:<version>`, on the family's own `study-cards` queue (workflow and
 * activities). Attempts are the job row's: each one is begun in the row (attempts = n, the source
 * re-checked: vanished or not ready → skipped `no_ready_explanation`, never retried), then ONE
 * extraction call (gather context, AI, guards; `maximumAttempts: 1`, so the server counts every real
 * attempt), then the supersede that completes the job in the same transaction (zero cards →
 * completed `all_dropped`). A failed call is classified (parse_fail, llm_timeout, unknown) and
 * retried while attempts < max_attempts, then the job fails. A provider outage (unavailable, rate
 * limited) is waited out and the same attempt repeated, not charged (bounded). A worker killed
 * mid-call is noticed by the heartbeat timeout (an `unknown` attempt); the supersede is one
 * transaction, so a kill there rolls back and the retried write makes one set of live cards.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, TimeoutFailure, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { StudyCardActivities } from '../../activities/study/cards';
import { projectionOptions } from '../../core/activity-options';
import { failure } from '../../core/failures';
import { EXTRACTION_ERROR_CODES, extractionCodeOf, extractionOutcome, ST_FAILURES, type ExtractionErrorCode } from '../../domain/study/errors';
import type { StudyCardExtractInput, StudyCardExtractResult } from '../../domain/study/contracts';

/** Failure types of a provider outage: waited out, the attempt repeated and not charged. */
const OUTAGE_TYPES = new Set(['AI_UPSTREAM_UNAVAILABLE', 'AI_RATE_LIMITED']);
/** Most outage waits of one job (30 s apart at most: about a quarter of an hour), then the attempt counts as `unknown`. */
const MAX_OUTAGE_WAITS = 30;

/** How one failed extraction call is handled. */
export interface ClassifiedFailure {
  code: ExtractionErrorCode;
  message: string;
  outage: boolean;
  retryAfterMs?: number | undefined;
}

/** ST-4 code of a failed `extractStudyCards` call (a Temporal timeout, or the activity's catalogued failure type). */
export function classifyExtractionFailure(err: ActivityFailure): ClassifiedFailure {
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) {
    const heartbeat = cause.timeoutType === 'HEARTBEAT';
    return {
      code: extractionCodeOf({ timeout: heartbeat ? 'heartbeat' : 'deadline' }),
      message: heartbeat ? 'the worker running the extraction stopped heartbeating' : `the extraction exceeded its deadline (${String(cause.timeoutType)})`,
      outage: false,
    };
  }
  if (cause instanceof ApplicationFailure) {
    const type = cause.type ?? '';
    if (type === 'STUDY_EXTRACTION_ATTEMPT_FAILED') {
      const d = (cause.details?.[0] ?? {}) as { code?: string };
      const code = (EXTRACTION_ERROR_CODES as readonly string[]).includes(d.code ?? '') ? (d.code as ExtractionErrorCode) : 'unknown';
      return { code, message: cause.message, outage: false };
    }
    const aiCode = type.startsWith('AI_') ? type.slice(3) : undefined;
    const delay = cause.nextRetryDelay;
    return {
      code: extractionCodeOf({ aiCode }),
      message: `${type ? `${type}: ` : ''}${cause.message}`,
      outage: OUTAGE_TYPES.has(type),
      retryAfterMs: typeof delay === 'number' ? delay : undefined,
    };
  }
  return { code: 'unknown', message: cause?.message ?? err.message, outage: false };
}

/**
 * The extraction workflow (see the module comment). Returns the job's final state; throws
 * STUDY_EXTRACTION_FAILED (non-retryable) when the job ended `failed`, so operators find it with
 * `ExecutionStatus="Failed"`. A cancellation closes the job `failed` (`unknown`, cancelled).
 */
export async function studyCardExtractWorkflow(input: StudyCardExtractInput): Promise<StudyCardExtractResult> {
  const book = proxyActivities<StudyCardActivities>(projectionOptions(input.queues.studyCards));
  const work = proxyActivities<StudyCardActivities>({
    taskQueue: input.queues.studyCards,
    startToCloseTimeout: input.policy.callTimeoutMs,
    heartbeatTimeout: input.policy.heartbeatTimeoutMs,
    retry: { maximumAttempts: 1 }, // ST-4: every real attempt is counted by the row, never a transparent retry
  });
  const ref = { jobId: input.jobId };
  let attempt = 1;
  let outageWaits = 0;
  try {
    for (;;) {
      const begin = await book.beginStudyCardAttempt({ ...ref, attempt });
      if (!begin) throw failure(ST_FAILURES, 'STUDY_JOB_NOT_FOUND', `study_memo_card_jobs ${input.jobId} does not exist`);
      if (!begin.proceed) {
        return { jobId: input.jobId, status: begin.status === 'skipped' || begin.status === 'completed' || begin.status === 'failed' ? begin.status : 'not_run', errorCode: begin.errorCode, attempts: begin.attempts };
      }
      let extracted: Awaited<ReturnType<StudyCardActivities['extractStudyCards']>>;
      try {
        extracted = await work.extractStudyCards({ ...ref, attempt });
      } catch (err) {
        if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
        const f = classifyExtractionFailure(err);
        if (extractionOutcome(f.code) === 'skip') {
          const skipped = await book.skipStudyCardJob({ ...ref, attempt, message: f.message });
          return { jobId: input.jobId, status: skipped?.status === 'skipped' ? 'skipped' : 'not_run', errorCode: skipped?.errorCode ?? f.code, attempts: attempt };
        }
        if (f.outage && outageWaits < MAX_OUTAGE_WAITS) {
          outageWaits += 1;
          await sleep(f.retryAfterMs ?? Math.min(30_000, 1_000 * 2 ** Math.min(outageWaits, 5)));
          continue; // the same attempt again: an outage is not charged
        }
        const final = attempt >= begin.maxAttempts;
        const after = await book.failStudyCardAttempt({ ...ref, attempt, code: f.code, message: f.message, final });
        if (final || after?.status !== 'processing') {
          throw failure(ST_FAILURES, 'STUDY_EXTRACTION_FAILED', `memo-card job ${input.jobId} failed after ${attempt} attempt(s): ${f.code}`, { cause: err });
        }
        await sleep(input.policy.retryDelayMs);
        attempt += 1;
        continue;
      }
      const stored = await book.storeStudyCards({ ...ref, attempt, ...extracted });
      return { jobId: input.jobId, status: stored.status === 'completed' ? 'completed' : 'not_run', errorCode: stored.errorCode, attempts: attempt };
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => book.abandonStudyCardJob({ ...ref, message: 'the extraction workflow was cancelled' }));
    }
    throw err;
  }
}
