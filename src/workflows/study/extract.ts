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
 * Runs with {@link EXTRACT_ONE_ACTIVITY_PATCH} make each attempt ONE activity that begins it, extracts
 * and supersedes (a clean run: two workflow tasks and that activity, nothing else); the row's other
 * writes (a failed call, a skip, a store the call could not make) run as local activities first,
 * the same writes on the queue as their fallback ({@link EXTRACT_LOCAL_WRITES_PATCH}).
 * The attempts run on the core attempt ledger (src/core/attempts.ts) with this family's hooks and
 * codes ({@link EXTRACTION_FAILURES}).
 */
import { CancellationScope, isCancellation, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { StudyCardActivities, StudyCardAttemptOutcome } from '../../activities/study/cards';
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

/**
 * `patched()` ID of one activity per attempt (`runStudyCardAttempt`: begin, extraction and supersede
 * in the call), no write of the row in the workflow on a clean run, and the failure of a call recorded by
 * `failStudyCardCall` (the call may have failed before its begin). Histories without its marker
 * begin, store and fail in writes of their own and replay on that branch ({@link EXTRACT_LOCAL_WRITES_PATCH}).
 */
export const EXTRACT_ONE_ACTIVITY_PATCH = 'study-extract-one-activity';

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
  const oneActivity = patched(EXTRACT_ONE_ACTIVITY_PATCH);
  const book = localFirstActivities(
    oneActivity || patched(EXTRACT_LOCAL_WRITES_PATCH),
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
  const budgetLoop = { first: 1, vocabulary: EXTRACTION_FAILURES, retryBackoff: { initialMs: input.policy.retryDelayMs, maxMs: input.policy.retryDelayMs, honourRetryAfter: false } } as const;
  // ST-4: `attempts` counts charged attempts, so an outage repeats the same attempt unrecorded.
  const outages = { repeat: 'same-attempt', maxWaits: MAX_OUTAGE_WAITS, backoff: { initialMs: 2_000, maxMs: 30_000, honourRetryAfter: true } } as const;
  const endOf = (s: { status: string; errorCode: string | null }, attempts: number): StudyCardExtractResult => ({
    jobId: input.jobId,
    status: s.status === 'skipped' || s.status === 'completed' || s.status === 'failed' ? s.status : 'not_run',
    errorCode: s.errorCode,
    attempts,
  });
  try {
    if (oneActivity) {
      return await runAttempts<null, StudyCardAttemptOutcome, StudyCardExtractResult, ExtractionErrorCode>({
        ...budgetLoop,
        // The call begins its attempt; the row's max_attempts is applied by failStudyCardCall.
        begin: async () => ({ begun: null, budget: Number.POSITIVE_INFINITY }),
        call: (_begun, number) => work.runStudyCardAttempt({ ...ref, attempt: number }),
        succeed: async (_begun, r, number) => {
          if (r.outcome === 'not-begun') return endOf(r.state, r.state.attempts);
          const stored = r.outcome === 'stored' ? r.stored : await book.storeStudyCards({ ...ref, attempt: number, ...r.extracted });
          // skipped: the source was replaced while the cards were extracted; nothing was stored.
          return endOf(stored.status === 'completed' || stored.status === 'skipped' ? stored : { ...stored, status: 'not_run' }, number);
        },
        retrying: async (f) => {
          const after = await book.failStudyCardCall({ ...ref, attempt: f.number, code: f.failure.code, message: f.failure.message });
          if (!after) throw failure(ST_FAILURES, 'STUDY_JOB_NOT_FOUND', `study_memo_card_jobs ${input.jobId} does not exist`);
          if (after.status === 'processing') return undefined;
          // Closed by the call itself (stored, then the worker died before its answer reached the server).
          if (after.status === 'completed' || after.status === 'skipped') return endOf(after, after.attempts);
          throw extractionFailed(f);
        },
        // Only a terminal failure ends here (the budget is the row's): no_ready_explanation found by the call.
        ended: async (f) => {
          const skipped = await book.skipStudyCardJob({ ...ref, attempt: f.number, message: f.failure.message });
          return { jobId: input.jobId, status: skipped?.status === 'skipped' ? 'skipped' : 'not_run', errorCode: skipped?.errorCode ?? f.failure.code, attempts: f.number };
        },
        outages,
      });
    }
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
      retryBackoff: budgetLoop.retryBackoff,
      outages,
    });
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => book.abandonStudyCardJob({ ...ref, message: 'the extraction workflow was cancelled' }));
    }
    throw err;
  }
}
