/**
 * ST-5 supersede, in ONE transaction with the job's completion: the live cards of older versions
 * of the same source are retired (deleted_at set, the row kept for history), the new ones appended
 * with their evidence rows; a card whose normalised content did not change across versions keeps
 * its row (id, progress, review log) and only moves to the new version, its evidence replaced by
 * this version's quotes. Live cards are unique per (user, normalised key) by a partial unique index
 * (deleted_at IS NULL): a card that meets a live duplicate of another source at insert time is
 * dropped (`duplicate_of_live`), never an error. The cards are written only while the source is
 * still at the job's version (its row locked first): an explanation replaced since the extraction
 * read it (by hand) wins, and the job is skipped `no_ready_explanation` with nothing written (ST-4).
 * A retried call after the commit returns the stored result and writes nothing.
 */
import { Prisma } from '@prisma/client';
import type { Db } from '../../db/client';
import { storableText } from '../../core/cause-chain';
import { STUDY_MEMO_CARD_JOB_STATES, type StudyMemoCardJobStatus } from '../../domain/study/job-state';
import type { StudySourceKind } from '../../domain/study/contracts';
import { moveJob } from './jobs';
import { evidenceOrigin, loadSource, notReadyReason, type StudySource } from './sources';

/** One guarded card to store. `normalizedKey` is the guards' dedup key. */
export interface CardToStore {
  kind: 'basic' | 'cloze';
  cue: string | null;
  answer: string;
  clozeText: string | null;
  normalizedKey: string;
  evidence: { ref: string; quote: string }[];
}

/** Input of {@link supersedeCards}. */
export interface SupersedeInput {
  jobId: string;
  attempt: number;
  cards: CardToStore[];
  /** Cards the provider returned, before the guards. */
  returned: number;
  /** Drops by reason (the guards'); `duplicate_of_live` may grow here. */
  dropped: Record<string, number>;
  /** The question is flagged needs_review with this reason (all or mostly dropped); null clears the flag. */
  needsReview: string | null;
  /** Refs of the retrieved passages given as context (for the payload). */
  contextRefs: string[];
}

/** What the job stored (also kept in its payload as `result`). */
export interface SupersedeResult {
  status: StudyMemoCardJobStatus;
  errorCode: string | null;
  added: number;
  kept: number;
  retired: number;
  dropped: Record<string, number>;
}

interface LockedJob {
  id: string;
  user_id: string;
  source_kind: StudySourceKind;
  source_id: string;
  source_version: Date;
  status: SupersedeResult['status'];
  attempts: number;
  error_code: string | null;
  payload: Prisma.JsonValue;
}

/**
 * Supersedes the source's cards with `input.cards` and completes the job (ST-4: zero cards stored →
 * completed with `all_dropped`, which blocks re-extracting that version). The job must be
 * `processing` at attempt `input.attempt`; otherwise nothing is written and its state is returned
 * (a completed job returns the result it stored). A source no longer at the job's version (or
 * gone) skips the job `no_ready_explanation` and writes nothing else.
 */
export async function supersedeCards(db: Db, input: SupersedeInput): Promise<SupersedeResult> {
  return db.$transaction(async (tx) => {
    const [job] = await tx.$queryRaw<LockedJob[]>`
      SELECT id::text, user_id::text, source_kind, source_id::text, source_version, status, attempts, error_code, payload
      FROM study_memo_card_jobs WHERE id = ${input.jobId}::uuid FOR UPDATE`;
    if (!job) throw new Error(`study_memo_card_jobs ${input.jobId} does not exist`);
    if (!STUDY_MEMO_CARD_JOB_STATES.canTransition(job.status, 'completed') || job.attempts !== input.attempt) {
      const stored = (job.payload as { result?: SupersedeResult } | null)?.result;
      return stored ?? { status: job.status, errorCode: job.error_code, added: 0, kept: 0, retired: 0, dropped: {} };
    }
    const source = { kind: job.source_kind, id: job.source_id };
    const now = new Date();
    const dropped: Record<string, number> = { ...input.dropped };

    // The compare-and-set on the source's version: its row stays locked until the commit.
    const { ready, topicId } = await lockSource(tx, job);
    const superseded = notReadyReason(ready, job.source_version);
    if (superseded) {
      const message = storableText(superseded);
      await moveJob(tx, job.id, 'skipped', { errorCode: 'no_ready_explanation', errorMessage: message, completedAt: now }, { attempts: input.attempt });
      return { status: 'skipped', errorCode: 'no_ready_explanation', added: 0, kept: 0, retired: 0, dropped };
    }

    const live = await tx.$queryRaw<{ id: string; normalized_key: string }[]>`
      SELECT id::text, normalized_key FROM study_memo_cards
      WHERE source_kind = ${job.source_kind}::"StudySourceKind" AND source_id = ${job.source_id}::uuid AND deleted_at IS NULL
      FOR UPDATE`;
    const liveByKey = new Map(live.map((c) => [c.normalized_key, c.id]));
    const wanted = new Set(input.cards.map((c) => c.normalizedKey));
    const retire = live.filter((c) => !wanted.has(c.normalized_key)).map((c) => c.id);
    const rows: CardRow[] = [];
    const seen = new Set<string>();
    for (const card of input.cards) {
      if (seen.has(card.normalizedKey)) continue;
      seen.add(card.normalizedKey);
      rows.push({
        ord: rows.length, kind: card.kind, cue: card.cue, answer: card.answer, cloze_text: card.clozeText, normalized_key: card.normalizedKey,
        kept_id: liveByKey.get(card.normalizedKey) ?? null,
        evidence: card.evidence.map((e, ordinal) => {
          const origin = evidenceOrigin(e.ref, source);
          return { ordinal, source_kind: origin.kind, source_id: origin.id, quote: e.quote };
        }),
      });
    }
    const keep = rows.flatMap((r) => (r.kept_id ? [r.kept_id] : []));
    if (retire.length > 0 || keep.length > 0) await retireAndMove(tx, job, retire, keep, now);
    const kept = keep.length;
    const added = await appendCards(tx, job, topicId, rows, now);
    const duplicates = rows.length - kept - added;
    if (duplicates > 0) dropped['duplicate_of_live'] = (dropped['duplicate_of_live'] ?? 0) + duplicates;
    const stored = added + kept;
    const result: SupersedeResult = { status: 'completed', errorCode: stored === 0 ? 'all_dropped' : null, added, kept, retired: retire.length, dropped };
    if (job.source_kind === 'study_question') {
      const flag = stored === 0 ? (input.needsReview ?? `all_dropped: ${input.returned} cards returned, none kept`) : input.needsReview;
      await tx.studyQuestion.updateMany({
        where: { id: job.source_id },
        data: flag ? { needsReview: true, needsReviewReason: storableText(flag), needsReviewAt: now } : { needsReview: false, needsReviewReason: null, needsReviewAt: null },
      });
    }
    const payload = {
      ...((job.payload as Record<string, unknown> | null) ?? {}),
      result,
      returned: input.returned,
      contextRefs: input.contextRefs,
    };
    // The row is locked and was checked above, so the guard holds.
    await moveJob(tx, job.id, 'completed', {
      completedAt: now,
      errorCode: result.errorCode,
      errorMessage: result.errorCode === 'all_dropped' ? `every card was dropped by the guards (${input.returned} returned)` : null,
      payload: payload as unknown as Prisma.InputJsonValue,
    }, { attempts: input.attempt });
    return result;
  }, { timeout: 30_000, maxWait: 10_000 });
}

/** One card of {@link appendCards}: `kept_id` is the live card of the same key that moves to the new version. */
interface CardRow {
  ord: number;
  kind: CardToStore['kind'];
  cue: string | null;
  answer: string;
  cloze_text: string | null;
  normalized_key: string;
  kept_id: string | null;
  evidence: { ordinal: number; source_kind: StudySourceKind; source_id: string; quote: string }[];
}

/**
 * Locks a question source's row (the compare-and-set on its version) and reads what the supersede
 * needs of it in the same statement: its explanation version and topic. A knowledge card is read,
 * not locked (no route rewrites it). `ready` null: the source is gone.
 */
async function lockSource(tx: Prisma.TransactionClient, job: LockedJob): Promise<{ ready: Pick<StudySource, 'explanation' | 'version'> | null; topicId: string | null }> {
  if (job.source_kind !== 'study_question') return { ready: await loadSource(tx, job.source_kind, job.source_id), topicId: null };
  const [q] = await tx.$queryRaw<{ ai_explanation: string | null; ai_explanation_generated_at: Date | null; topic_id: string }[]>`
    SELECT ai_explanation, ai_explanation_generated_at, topic_id::text FROM study_questions WHERE id = ${job.source_id}::uuid FOR UPDATE`;
  return { ready: q ? { explanation: q.ai_explanation, version: q.ai_explanation_generated_at } : null, topicId: q?.topic_id ?? null };
}

/**
 * One statement: retires the live cards `retire` (deleted_at, retired_by_job_id), moves the kept
 * cards `keep` to the job's version and deletes their evidence (this version's quotes replace it).
 */
async function retireAndMove(tx: Prisma.TransactionClient, job: LockedJob, retire: string[], keep: string[], now: Date): Promise<void> {
  await tx.$executeRaw`
    WITH retired AS (
      UPDATE study_memo_cards SET deleted_at = ${now}::timestamptz(3), retired_by_job_id = ${job.id}::uuid
      WHERE id = ANY(${retire}::uuid[]) AND deleted_at IS NULL
      RETURNING id
    ), moved AS (
      UPDATE study_memo_cards SET source_version = ${job.source_version}::timestamptz(3)
      WHERE id = ANY(${keep}::uuid[])
      RETURNING id
    )
    DELETE FROM study_memo_card_evidence WHERE card_id = ANY(${keep}::uuid[])`;
}

/**
 * One statement: inserts the new cards (a live duplicate of another source's card is skipped by the
 * live-key index, ON CONFLICT DO NOTHING), a progress row for each inserted card, and the evidence
 * rows of the inserted and kept cards. Returns how many cards were inserted.
 */
async function appendCards(tx: Prisma.TransactionClient, job: LockedJob, topicId: string | null, rows: CardRow[], now: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const [r] = await tx.$queryRaw<{ inserted: number }[]>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS c(ord int, kind text, cue text, answer text, cloze_text text, normalized_key text, kept_id uuid, evidence jsonb)
    ), inserted AS (
      INSERT INTO study_memo_cards (id, user_id, topic_id, source_kind, source_id, source_version, kind, cue, answer, cloze_text, normalized_key, job_id, created_at)
      SELECT gen_random_uuid(), ${job.user_id}::uuid, ${topicId}::uuid, ${job.source_kind}::"StudySourceKind", ${job.source_id}::uuid,
             ${job.source_version}::timestamptz(3), i.kind::"StudyMemoCardKind", i.cue, i.answer, i.cloze_text, i.normalized_key, ${job.id}::uuid,
             ${now}::timestamptz(3)
      FROM input i WHERE i.kept_id IS NULL ORDER BY i.ord
      ON CONFLICT DO NOTHING
      RETURNING id, normalized_key
    ), progress AS (
      INSERT INTO study_memo_card_progress (card_id, user_id, due)
      SELECT id, ${job.user_id}::uuid, ${now}::timestamptz(3) FROM inserted
    ), targets AS (
      SELECT COALESCE(i.kept_id, n.id) AS card_id, i.evidence
      FROM input i LEFT JOIN inserted n ON i.kept_id IS NULL AND n.normalized_key = i.normalized_key
      WHERE i.kept_id IS NOT NULL OR n.id IS NOT NULL
    ), evidence AS (
      INSERT INTO study_memo_card_evidence (id, card_id, ordinal, source_kind, source_id, quote)
      SELECT gen_random_uuid(), t.card_id, e.ordinal, e.source_kind::"StudySourceKind", e.source_id::uuid, e.quote
      FROM targets t CROSS JOIN LATERAL jsonb_to_recordset(t.evidence) AS e(ordinal int, source_kind text, source_id text, quote text)
    )
    SELECT count(*)::int AS inserted FROM inserted`;
  return r?.inserted ?? 0;
}
