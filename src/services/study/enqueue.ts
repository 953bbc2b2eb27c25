/**
 * ST-1 … ST-3 the memo-card extraction queue's enqueue side: one job per source version, at most
 * one active job per source. Both idempotency layers are in the database, so concurrent callers
 * (API requests, two pollers) can never make a second job:
 * - ST-2 the partial unique index `study_memo_card_jobs_one_active_per_source` over
 *   (source_kind, source_id) WHERE status IN ('pending', 'processing');
 * - ST-3 the unique (source_kind, source_id, source_version): one job per exact version, ever;
 *   the poller's NOT EXISTS on that version keeps it from even trying.
 * Every insert is `INSERT … ON CONFLICT DO NOTHING … RETURNING` and its result is checked: an
 * enqueue that lost a race reports "skipped" with the reason instead of failing or vanishing.
 * The API's enqueue may name a per-request completion webhook (src/core/webhook-requests.ts), kept
 * with the new job in the insert's transaction and removed with a withdrawn one.
 */
import { Prisma } from '@prisma/client';
import type { Db, DbClient } from '../../db/client';
import { recordRequestWebhook, removeRequestWebhook, type RequestWebhook } from '../../core/webhook-requests';
import { studyCardExtractWorkflowId, type StudySourceKind } from '../../domain/study/contracts';
import { STUDY_MEMO_CARD_JOB_STATES } from '../../domain/study/job-state';

/** Event source of an extraction job's terminal events (the prefix of the `study_memo_card_jobs` webhook trigger). */
export const STUDY_MEMO_CARD_JOB_WEBHOOK_SOURCE = 'study_memo_card_job';

/** One job row as the enqueue side returns it. */
export interface EnqueuedJob {
  jobId: string;
  userId: string;
  sourceKind: StudySourceKind;
  sourceId: string;
  sourceVersion: Date;
  workflowId: string;
}

/** What to enqueue: one version of one source. */
export interface ExtractionRequest {
  userId: string;
  sourceKind: StudySourceKind;
  sourceId: string;
  /** The source's version (a question's ai_explanation_generated_at, a knowledge card's created_at). */
  sourceVersion: Date;
  /** ST-1 max_attempts (default 2). */
  maxAttempts?: number;
  /** Stored in the job's payload (e.g. who enqueued it). */
  payload?: Record<string, unknown>;
}

/**
 * Outcome of {@link enqueueExtraction}: `enqueued` (a new pending job; start its workflow), or
 * `skipped` with the reason: `already_active` (ST-2: another version's job of the source is pending
 * or processing) or `version_exists` (ST-3: this version already has a job, whatever its status).
 */
export type EnqueueOutcome =
  | { status: 'enqueued'; job: EnqueuedJob }
  | { status: 'skipped'; reason: 'already_active' | 'version_exists'; jobId: string | null };

interface JobRowRaw {
  id: string;
  user_id: string;
  source_kind: StudySourceKind;
  source_id: string;
  source_version: Date;
  workflow_id: string;
}

function toJob(r: JobRowRaw): EnqueuedJob {
  const job = { jobId: r.id, userId: r.user_id, sourceKind: r.source_kind, sourceId: r.source_id, sourceVersion: r.source_version, workflowId: r.workflow_id };
  // The SQL builds the workflow ID (the poll inserts many rows in one statement): it must be the builder's.
  const expected = studyCardExtractWorkflowId(job.sourceKind, job.sourceId, job.sourceVersion);
  if (job.workflowId !== expected) throw new Error(`workflow id ${job.workflowId} of job ${job.jobId} is not ${expected}`);
  return job;
}

/** SQL of the ST-3 workflow ID of a row with columns `source_kind`, `source_id`, `source_version` (UTC, ms). */
const WORKFLOW_ID_SQL = Prisma.sql`'study-card-extract:' || source_kind::text || ':' || source_id::text || ':' ||
  to_char(source_version AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * ST-2/ST-3 enqueues one source version with `INSERT … ON CONFLICT DO NOTHING` and checks the
 * result; never throws on a conflict. Does not start the workflow (the caller does, after commit).
 */
export async function enqueueExtraction(db: DbClient, req: ExtractionRequest): Promise<EnqueueOutcome> {
  const rows = await db.$queryRaw<JobRowRaw[]>`
    INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, kind, status, max_attempts, payload, workflow_id)
    SELECT v.id, v.user_id, v.source_kind, v.source_id, v.source_version, 'card_extract', 'pending', v.max_attempts, v.payload, ${WORKFLOW_ID_SQL}
    FROM (SELECT gen_random_uuid() AS id, ${req.userId}::uuid AS user_id, ${req.sourceKind}::"StudySourceKind" AS source_kind,
                 ${req.sourceId}::uuid AS source_id, ${req.sourceVersion}::timestamptz(3) AS source_version,
                 ${req.maxAttempts ?? 2}::int AS max_attempts, ${JSON.stringify(req.payload ?? {})}::jsonb AS payload) v
    ON CONFLICT DO NOTHING
    RETURNING id::text, user_id::text, source_kind, source_id::text, source_version, workflow_id`;
  const row = rows[0];
  if (row) return { status: 'enqueued', job: toJob(row) };
  const same = await db.studyMemoCardJob.findFirst({
    where: { sourceKind: req.sourceKind, sourceId: req.sourceId, sourceVersion: req.sourceVersion },
    select: { id: true },
  });
  if (same) return { status: 'skipped', reason: 'version_exists', jobId: same.id };
  const active = await db.studyMemoCardJob.findFirst({
    where: { sourceKind: req.sourceKind, sourceId: req.sourceId, status: { in: [...STUDY_MEMO_CARD_JOB_STATES.active] } },
    select: { id: true },
  });
  return { status: 'skipped', reason: 'already_active', jobId: active?.id ?? null };
}

/**
 * {@link enqueueExtraction} with the request's per-request webhook (already checked with
 * `checkRequestWebhook`): the webhook is kept with a new job in the insert's transaction; a skipped
 * enqueue keeps none (the job it names is another request's or the poller's). Without `webhook`,
 * exactly {@link enqueueExtraction}.
 */
export async function enqueueRequestedExtraction(db: Db, req: ExtractionRequest, webhook: RequestWebhook | undefined): Promise<EnqueueOutcome> {
  if (!webhook) return enqueueExtraction(db, req);
  return db.$transaction(async (tx) => {
    const r = await enqueueExtraction(tx, req);
    if (r.status === 'enqueued') await recordRequestWebhook(tx, webhook, r.job.jobId);
    return r;
  });
}

/**
 * Deletes the still pending job `jobId` that an API request enqueued and whose workflow Temporal
 * could not start (the request answers 503 and the client retries), with its per-request webhook:
 * no job of that version is left.
 */
export async function withdrawExtraction(db: Db, jobId: string): Promise<void> {
  await db.$transaction(async (tx) => {
    const gone = await tx.studyMemoCardJob.deleteMany({ where: { id: jobId, status: 'pending' } });
    if (gone.count > 0) await removeRequestWebhook(tx, STUDY_MEMO_CARD_JOB_WEBHOOK_SOURCE, jobId);
  });
}

/** Options of {@link pollSources}. */
export interface PollOptions {
  /** At most this many new jobs (ST-3 per-poll limit). */
  limit: number;
  /** Source kinds polled. */
  sourceKinds: readonly StudySourceKind[];
  /** ST-1 max_attempts of the new jobs. */
  maxAttempts: number;
}

/**
 * ST-3 one poll, ONE statement: enqueues at most `limit` source versions that are ready (a
 * question with `ai_explanation_generated_at` set; any knowledge card, its version being its
 * creation), have NO job for that exact version (NOT EXISTS) and no active job (ST-2: such a source
 * waits for the next poll instead of taking a slot), topics in focus first (latest focus first),
 * then the oldest versions. `ON CONFLICT DO NOTHING` makes a concurrent poll (or API enqueue) of
 * the same source lose quietly: whatever runs at once, no version gets a second job. Returns the
 * new jobs; the caller starts their workflows.
 */
export async function pollSources(db: DbClient, opts: PollOptions): Promise<EnqueuedJob[]> {
  const kinds = [...opts.sourceKinds];
  if (kinds.length === 0 || opts.limit <= 0) return [];
  const rows = await db.$queryRaw<JobRowRaw[]>`
    WITH candidates AS (
      SELECT q.user_id, 'study_question'::"StudySourceKind" AS source_kind, q.id AS source_id,
             q.ai_explanation_generated_at AS source_version, t.focused_at
      FROM study_questions q JOIN study_topics t ON t.id = q.topic_id
      WHERE 'study_question' = ANY(${kinds}::text[])
        AND q.ai_explanation_generated_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM study_memo_card_jobs j
                        WHERE j.source_kind = 'study_question' AND j.source_id = q.id
                          AND (j.source_version = q.ai_explanation_generated_at OR j.status IN ('pending', 'processing')))
      UNION ALL
      SELECT k.user_id, 'knowledge_card'::"StudySourceKind", k.id, k.created_at, NULL::timestamptz
      FROM knowledge_cards k
      WHERE 'knowledge_card' = ANY(${kinds}::text[])
        AND NOT EXISTS (SELECT 1 FROM study_memo_card_jobs j
                        WHERE j.source_kind = 'knowledge_card' AND j.source_id = k.id
                          AND (j.source_version = k.created_at OR j.status IN ('pending', 'processing')))
    ),
    picked AS (
      SELECT * FROM candidates ORDER BY focused_at DESC NULLS LAST, source_version ASC, source_id ASC LIMIT ${opts.limit}
    )
    INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, kind, status, max_attempts, payload, workflow_id)
    SELECT gen_random_uuid(), user_id, source_kind, source_id, source_version, 'card_extract', 'pending', ${opts.maxAttempts}::int,
           '{"enqueuedBy": "poller"}'::jsonb, ${WORKFLOW_ID_SQL}
    FROM picked
    ON CONFLICT DO NOTHING
    RETURNING id::text, user_id::text, source_kind, source_id::text, source_version, workflow_id`;
  return rows.map(toJob);
}

/**
 * Pending jobs older than `graceSeconds` (their workflow start may have been lost: the poller
 * enqueued them and its worker died before starting them), oldest first, at most `limit`. Starting
 * them again is harmless: the workflow ID is the version's.
 */
export async function stalePendingJobs(db: DbClient, graceSeconds: number, limit: number): Promise<EnqueuedJob[]> {
  const rows = await db.$queryRaw<JobRowRaw[]>`
    SELECT id::text, user_id::text, source_kind, source_id::text, source_version, workflow_id
    FROM study_memo_card_jobs
    WHERE status = 'pending' AND created_at < now() - make_interval(secs => ${graceSeconds}::int)
    ORDER BY created_at ASC LIMIT ${limit}`;
  return rows.map(toJob);
}
