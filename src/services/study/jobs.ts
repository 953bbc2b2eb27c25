/**
 * ST-1/ST-4 guarded writes of one memo-card extraction job. Every write is a conditional UPDATE
 * keyed by the job and the attempt number the workflow passes in, so a repeated activity (Temporal
 * retried it after it committed) changes nothing twice: `attempts` counts real attempts.
 *
 * States (src/domain/study/job-state.ts): pending → processing (first attempt) → completed | failed |
 * skipped; an attempt that failed with a retried code (parse_fail, llm_timeout, unknown) leaves the
 * row processing with its error_code and error_message visible until the next attempt ends.
 */
import { Prisma } from '@prisma/client';
import type { Db } from '../../db/client';
import type { ExtractionErrorCode } from '../../domain/study/errors';
import { storableText } from '../../core/cause-chain';
import { guardedTransition, settleTransition, transitionGuard } from '../../core/guarded-transition';
import { STUDY_MEMO_CARD_JOB_STATES, type StudyMemoCardJobStatus } from '../../domain/study/job-state';
import type { StudySourceKind } from '../../domain/study/contracts';
import { loadSource, notReadyReason } from './sources';

/** The row's state as the workflow sees it. */
export interface JobState {
  status: StudyMemoCardJobStatus;
  attempts: number;
  maxAttempts: number;
  errorCode: string | null;
}

/** Outcome of {@link beginAttempt}: `proceed` false when the row is closed, out of attempts, or was just skipped. */
export interface BeginResult extends JobState {
  proceed: boolean;
}

/** The job's status now, the read of a rejected guarded transition. */
function statusOf(db: Db | Prisma.TransactionClient, jobId: string) {
  return db.studyMemoCardJob.findUnique({ where: { id: jobId }, select: { status: true } });
}

/**
 * The guarded transition of job `jobId` to `to` with `data` (DC-3); `guard.from` narrows the
 * table's sources, `guard.attempts` is the attempt count the row must have. False when not allowed.
 */
export async function moveJob(
  db: Db | Prisma.TransactionClient,
  jobId: string,
  to: StudyMemoCardJobStatus,
  data: Omit<Prisma.StudyMemoCardJobUpdateManyMutationInput, 'status'>,
  guard: { from?: StudyMemoCardJobStatus[]; attempts?: number } = {},
): Promise<boolean> {
  const r = await guardedTransition(STUDY_MEMO_CARD_JOB_STATES, {
    to,
    from: guard.from,
    write: (from) => db.studyMemoCardJob.updateMany({ where: { id: jobId, status: { in: from }, attempts: guard.attempts }, data: { ...data, status: to } }),
    read: () => statusOf(db, jobId),
  });
  return r.changed;
}

async function stateOf(db: Db | Prisma.TransactionClient, jobId: string): Promise<JobState | null> {
  const row = await db.studyMemoCardJob.findUnique({ where: { id: jobId }, select: { status: true, attempts: true, maxAttempts: true, errorCode: true } });
  return row;
}

/** The job row and, for a question, its source's version fields, read in one statement. */
interface BeginRow {
  status: JobState['status'];
  attempts: number;
  max_attempts: number;
  error_code: string | null;
  source_kind: StudySourceKind;
  source_id: string;
  source_version: Date;
  started_at: Date | null;
  /** True when the source is a question and its row exists. */
  question_found: boolean;
  ai_explanation: string | null;
  ai_explanation_generated_at: Date | null;
}

/**
 * Begins attempt `attempt` (1-based) of job `jobId`: pending/processing → processing with
 * attempts = `attempt` (from `attempt - 1`; a repeat of the same attempt is a no-op that proceeds)
 * and started_at stamped once. First checks the source (ST-4): when it vanished, has no explanation
 * or a newer version than the job's, the job is `skipped` with `no_ready_explanation` (never
 * retried) and `proceed` is false. Returns null when there is no such job. Two statements when the
 * attempt begins (the job with a question source read at once; the guarded UPDATE … RETURNING).
 */
export async function beginAttempt(db: Db, jobId: string, attempt: number): Promise<BeginResult | null> {
  const [job] = await db.$queryRaw<BeginRow[]>`
    SELECT j.status, j.attempts, j.max_attempts, j.error_code, j.source_kind, j.source_id::text, j.source_version, j.started_at,
           q.id IS NOT NULL AS question_found, q.ai_explanation, q.ai_explanation_generated_at
    FROM study_memo_card_jobs j
    LEFT JOIN study_questions q ON j.source_kind = 'study_question' AND q.id = j.source_id
    WHERE j.id = ${jobId}::uuid`;
  if (!job) return null;
  const state: JobState = { status: job.status, attempts: job.attempts, maxAttempts: job.max_attempts, errorCode: job.error_code };
  if (!STUDY_MEMO_CARD_JOB_STATES.isActive(job.status)) return { ...state, proceed: false };
  if (job.attempts >= attempt) return { ...state, proceed: job.attempts === attempt && job.status === 'processing' };
  if (attempt > job.max_attempts) return { ...state, proceed: false };
  const source = job.source_kind === 'study_question'
    ? job.question_found ? { explanation: job.ai_explanation, version: job.ai_explanation_generated_at } : null
    : await loadSource(db, job.source_kind, job.source_id);
  const reason = notReadyReason(source, job.source_version);
  const now = new Date();
  if (reason) {
    const data = { attempts: attempt, errorCode: 'no_ready_explanation', errorMessage: storableText(reason), startedAt: job.started_at ?? now, completedAt: now };
    await moveJob(db, jobId, 'skipped', data, { attempts: attempt - 1 });
    const s = await stateOf(db, jobId);
    return s && { ...s, proceed: false };
  }
  let moved: JobState | undefined;
  await guardedTransition(STUDY_MEMO_CARD_JOB_STATES, {
    to: 'processing',
    write: async (from) => {
      const rows = await db.$queryRaw<{ status: JobState['status']; attempts: number; max_attempts: number; error_code: string | null }[]>`
        UPDATE study_memo_card_jobs SET status = 'processing', attempts = ${attempt}, started_at = COALESCE(started_at, ${now})
        WHERE id = ${jobId}::uuid AND status = ANY(${from}::"StudyMemoCardJobStatus"[]) AND attempts = ${attempt - 1}
        RETURNING status, attempts, max_attempts, error_code`;
      const r = rows[0];
      if (r) moved = { status: r.status, attempts: r.attempts, maxAttempts: r.max_attempts, errorCode: r.error_code };
      return rows;
    },
    read: () => statusOf(db, jobId),
  });
  if (moved) return { ...moved, proceed: true };
  const s = await stateOf(db, jobId);
  if (!s) return null;
  return { ...s, proceed: s.status === 'processing' && s.attempts === attempt };
}

/**
 * Records the failure of attempt `attempt` with its ST-4 code: the error is visible in the row and
 * kept per attempt in payload.attemptErrors; `final` (attempts used up, or the code is not retried)
 * closes the job `failed` with completed_at. Idempotent per attempt. Returns the state after it.
 */
export async function failAttempt(
  db: Db,
  args: { jobId: string; attempt: number; code: ExtractionErrorCode; message: string; final: boolean },
): Promise<JobState | null> {
  const message = storableText(args.message);
  const entry = JSON.stringify({ code: args.code, message, at: new Date().toISOString() });
  const status = args.final ? 'failed' : 'processing';
  // Only the attempt in flight records its failure.
  await guardedTransition(STUDY_MEMO_CARD_JOB_STATES, {
    to: status,
    from: ['processing'],
    write: (from) => db.$executeRaw`
      UPDATE study_memo_card_jobs
      SET error_code = ${args.code}, error_message = ${message},
          payload = jsonb_set(COALESCE(payload, '{}'::jsonb), '{attemptErrors}',
                              COALESCE(payload->'attemptErrors', '{}'::jsonb) || jsonb_build_object(${String(args.attempt)}::text, ${entry}::jsonb)),
          status = ${status}::"StudyMemoCardJobStatus",
          completed_at = CASE WHEN ${args.final} THEN now() ELSE completed_at END
      WHERE id = ${args.jobId}::uuid AND status = ANY(${from}::"StudyMemoCardJobStatus"[]) AND attempts = ${args.attempt}`,
    read: () => statusOf(db, args.jobId),
  });
  return stateOf(db, args.jobId);
}

/**
 * Records the failure of attempt `attempt`'s call when the call begins the attempt itself
 * (`runStudyCardAttempt`): the row may be at `attempt` (begun) or still at `attempt - 1` (the call
 * failed before its begin committed); either way it ends at `attempts = attempt` with the code,
 * the message and payload.attemptErrors as {@link failAttempt} writes them, and closes `failed`
 * (completed_at) once `attempt` reaches max_attempts, else stays `processing` for the next attempt.
 * One statement, idempotent per attempt; a row closed meanwhile (completed by the call's own store)
 * is left as it is. Returns the state after it (null: no row).
 */
export async function failCallAttempt(
  db: Db,
  args: { jobId: string; attempt: number; code: ExtractionErrorCode; message: string },
): Promise<JobState | null> {
  const message = storableText(args.message);
  const entry = JSON.stringify({ code: args.code, message, at: new Date().toISOString() });
  // Either edge (processing: attempts left; failed: used up) leaves pending or processing.
  const from = transitionGuard(STUDY_MEMO_CARD_JOB_STATES, 'failed', { from: transitionGuard(STUDY_MEMO_CARD_JOB_STATES, 'processing') });
  const rows = await db.$queryRaw<{ status: JobState['status']; attempts: number; max_attempts: number; error_code: string | null }[]>`
    UPDATE study_memo_card_jobs
    SET error_code = ${args.code}, error_message = ${message}, attempts = ${args.attempt}, started_at = COALESCE(started_at, now()),
        payload = jsonb_set(COALESCE(payload, '{}'::jsonb), '{attemptErrors}',
                            COALESCE(payload->'attemptErrors', '{}'::jsonb) || jsonb_build_object(${String(args.attempt)}::text, ${entry}::jsonb)),
        status = (CASE WHEN ${args.attempt} >= max_attempts THEN 'failed' ELSE 'processing' END)::"StudyMemoCardJobStatus",
        completed_at = CASE WHEN ${args.attempt} >= max_attempts THEN now() ELSE completed_at END
    WHERE id = ${args.jobId}::uuid AND status = ANY(${from}::"StudyMemoCardJobStatus"[])
      AND attempts IN (${args.attempt - 1}, ${args.attempt})
    RETURNING status, attempts, max_attempts, error_code`;
  const r = rows[0];
  if (r) return { status: r.status, attempts: r.attempts, maxAttempts: r.max_attempts, errorCode: r.error_code };
  await settleTransition(STUDY_MEMO_CARD_JOB_STATES, 'failed', false, () => statusOf(db, args.jobId));
  return stateOf(db, args.jobId);
}

/** ST-4 `no_ready_explanation` found during attempt `attempt`: the job is skipped, never retried. Idempotent. */
export async function skipAttempt(db: Db, jobId: string, attempt: number, message: string): Promise<JobState | null> {
  const data = { errorCode: 'no_ready_explanation', errorMessage: storableText(message), completedAt: new Date() };
  await moveJob(db, jobId, 'skipped', data, { from: ['processing'], attempts: attempt });
  return stateOf(db, jobId);
}

/** Closes a job `failed` whatever its attempt (a cancelled workflow); a closed row is left as it is. */
export async function abandonJob(db: Db, jobId: string, code: ExtractionErrorCode, message: string): Promise<JobState | null> {
  await moveJob(db, jobId, 'failed', { errorCode: code, errorMessage: storableText(message), completedAt: new Date() });
  return stateOf(db, jobId);
}

/** The job's current state (null: no row). */
export function jobState(db: Db, jobId: string): Promise<JobState | null> {
  return stateOf(db, jobId);
}
