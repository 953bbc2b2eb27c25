/**
 * ST-4 … ST-6 the memo-card extraction of ONE source version, workflow ID
 * `study-card-extract:<kind>:<id>:<version>`, on the family's own `study-cards` queue (workflow and
 * activities). Attempts are the job row's: each one is begun in the row (attempts = n, the source
 * re-checked: vanished or not ready → skipped `no_ready_explanation`, never retried), then ONE
 * extraction call (gather context, AI, guards; `maximumAttempts: 1`, so the server counts every real
 * attempt), then the supersede that completes the job in the same transaction (zero cards →
 * completed `all_dropped`; a source replaced since the call read it → skipped `no_ready_explanation`,
 * nothing stored). A failed call is classified (parse_fail, llm_timeout, unknown) and
 * retried while attempts < max_attempts, then the job fails. A provider outage (unavailable, rate
 * limited) is waited out and the same attempt repeated, not charged (bounded). A worker killed
 * mid-call is noticed by the heartbeat timeout (an `unknown` attempt); the supersede is one
 * transaction, so a kill there rolls back and the retried write makes one set of live cards.
 * The row's writes run as local activities first, the same writes on the queue as their fallback
 * ({@link EXTRACT_LOCAL_WRITES_PATCH}).
 * The attempts run on the core attempt ledger (src/core/attempts.ts) with this family's hooks and
 * codes ({@link EXTRACTION_FAILURES}).
 */
import { CancellationScope, isCancellation, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { StudyCardActivities } from '../../activities/study/cards';
import { localProjectionOptions, projectionOptions } from '../../core/activity-options';
import { classifyAttemptFailure, runAttempts, type AttemptFailure, type FailedAttempt, type FailureVocabulary } from '../../core/attempts';
import { failure } from '../../core/failures';
import { EXTRACTION_ERROR_CODES, extractionCodeOf, extractionOutcome, ST_FAILURES, type ExtractionErrorCode } from '../../domain/study/errors';
import type { StudyCardExtractInput, StudyCardExtractResult } from '../../domain/study/contracts';
import { localFirstActivities } from '../core/job-runner';

/**
 * ST-4 codes of a failed `extractStudyCards` call: a Temporal timeout, the activity's own
 * STUDY_EXTRACTION_ATTEMPT_FAILED (its code in `details[0]`), or the AI boundary's `AI_<code>`.
 * Every code is retried while attempts < max_attempts except `no_ready_explanation` (skipped); a
 * provider outage (unavailable, rate limited) is waited out.
 */
export const EXTRACTION_FAILURES: FailureVocabulary<ExtractionErrorCode> = {
  subject: 'extraction',
  leaseExpired: extractionCodeOf({ timeout: 'heartbeat' }),
  deadline: extractionCodeOf({ timeout: 'deadline' }),
  unknown: 'unknown',
  outageTypes: ['AI_UPSTREAM_UNAVAILABLE', 'AI_RATE_LIMITED'],
  application: (f) => {
    if (f.type === 'STUDY_EXTRACTION_ATTEMPT_FAILED') {
      const code = EXTRACTION_ERROR_CODES.find((c) => c === f.code) ?? 'unknown';
      return { code, terminal: extractionOutcome(code) === 'skip' };
    }
    const code = extractionCodeOf({ aiCode: f.type.startsWith('AI_') ? f.type.slice(3) : undefined });
    return { code, terminal: extractionOutcome(code) === 'skip', message: `${f.type ? `${f.type}: ` : ''}${f.message}` };
  },
};

/**
 * `patched()` ID of the job row's writes (begin, store, fail, skip, abandon) as local activities
 * first ({@link localFirstActivities}): no `study-cards` task round trip per write, and the
 * extracted cards are in the history once (the extraction's result), not again as the store's
 * input. Histories without its marker schedule those writes as activities and replay on that branch.
 */
export const EXTRACT_LOCAL_WRITES_PATCH = 'study-extract-local-writes';

/** Most outage waits of one job (30 s apart at most: about a quarter of an hour), then an outage is charged. */
const MAX_OUTAGE_WAITS = 30;

/** ST-4 classification of a failed `extractStudyCards` call ({@link EXTRACTION_FAILURES}). */
export function classifyExtractionFailure(err: unknown): AttemptFailure<ExtractionErrorCode> {
  return classifyAttemptFailure(err, EXTRACTION_FAILURES);
}

/**
 * The extraction workflow (see the module comment). Returns the job's final state; throws
 * STUDY_EXTRACTION_FAILED (non-retryable) when the job ended `failed`, so operators find it with
 * `ExecutionStatus="Failed"`. A cancellation closes the job `failed` (`unknown`, cancelled).
 */
export async function studyCardExtractWorkflow(input: StudyCardExtractInput): Promise<StudyCardExtractResult> {
  const book = localFirstActivities(
    patched(EXTRACT_LOCAL_WRITES_PATCH),
    proxyLocalActivities<StudyCardActivities>(localProjectionOptions()),
    proxyActivities<StudyCardActivities>(projectionOptions(input.queues.studyCards)),
  );
  const work = proxyActivities<StudyCardActivities>({
    taskQueue: input.queues.studyCards,
    startToCloseTimeout: input.policy.callTimeoutMs,
    heartbeatTimeout: input.policy.heartbeatTimeoutMs,
    retry: { maximumAttempts: 1 }, // ST-4: every real attempt is counted by the row, never a transparent retry
  });
  const ref = { jobId: input.jobId };
  const extractionFailed = (f: FailedAttempt<unknown, ExtractionErrorCode>) =>
    failure(ST_FAILURES, 'STUDY_EXTRACTION_FAILED', `memo-card job ${input.jobId} failed after ${f.number} attempt(s): ${f.failure.code}`, { cause: f.error });
  try {
    return await runAttempts<unknown, Awaited<ReturnType<StudyCardActivities['extractStudyCards']>>, StudyCardExtractResult, ExtractionErrorCode>({
      first: 1,
      vocabulary: EXTRACTION_FAILURES,
      begin: async ({ number }) => {
        const begin = await book.beginStudyCardAttempt({ ...ref, attempt: number });
        if (!begin) throw failure(ST_FAILURES, 'STUDY_JOB_NOT_FOUND', `study_memo_card_jobs ${input.jobId} does not exist`);
        if (!begin.proceed) {
          return { end: { jobId: input.jobId, status: begin.status === 'skipped' || begin.status === 'completed' || begin.status === 'failed' ? begin.status : 'not_run', errorCode: begin.errorCode, attempts: begin.attempts } };
        }
        return { begun: begin, budget: begin.maxAttempts };
      },
      call: (_begun, number) => work.extractStudyCards({ ...ref, attempt: number }),
      succeed: async (_begun, extracted, number) => {
        const stored = await book.storeStudyCards({ ...ref, attempt: number, ...extracted });
        // skipped: the source was replaced while the cards were extracted; nothing was stored.
        const status = stored.status === 'completed' || stored.status === 'skipped' ? stored.status : 'not_run';
        return { jobId: input.jobId, status, errorCode: stored.errorCode, attempts: number };
      },
      retrying: async (f) => {
        const after = await book.failStudyCardAttempt({ ...ref, attempt: f.number, code: f.failure.code, message: f.failure.message, final: false });
        if (after?.status !== 'processing') throw extractionFailed(f);
        return undefined;
      },
      ended: async (f) => {
        if (f.last === 'terminal') {
          const skipped = await book.skipStudyCardJob({ ...ref, attempt: f.number, message: f.failure.message });
          return { jobId: input.jobId, status: skipped?.status === 'skipped' ? 'skipped' : 'not_run', errorCode: skipped?.errorCode ?? f.failure.code, attempts: f.number };
        }
        await book.failStudyCardAttempt({ ...ref, attempt: f.number, code: f.failure.code, message: f.failure.message, final: true });
        throw extractionFailed(f);
      },
      retryBackoff: { initialMs: input.policy.retryDelayMs, maxMs: input.policy.retryDelayMs, honourRetryAfter: false },
      // ST-4: `attempts` counts charged attempts, so an outage repeats the same attempt unrecorded.
      outages: { repeat: 'same-attempt', maxWaits: MAX_OUTAGE_WAITS, backoff: { initialMs: 2_000, maxMs: 30_000, honourRetryAfter: true } },
    });
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => book.abandonStudyCardJob({ ...ref, message: 'the extraction workflow was cancelled' }));
    }
    throw err;
  }
}
