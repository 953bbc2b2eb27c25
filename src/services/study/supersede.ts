/**
 * ST-5 supersede, in ONE statement with the job's completion: the live cards of older versions
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
import type { Db } from '../../db/client';
import { storableText } from '../../core/cause-chain';
import { transitionGuard } from '../../core/guarded-transition';
import { STUDY_MEMO_CARD_JOB_STATES, type StudyMemoCardJobStatus } from '../../domain/study/job-state';
import type { StudySourceKind } from '../../domain/study/contracts';
import { moveJob } from './jobs';
import { loadSource, notReadyReason, retrievedOrigin } from './sources';

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

/** The one row of {@link supersedeCards}' statement: the job as it was locked, and what the statement did. */
interface SupersedeRow {
  status: StudyMemoCardJobStatus;
  error_code: string | null;
  source_kind: StudySourceKind;
  source_id: string;
  source_version: Date;
  /** The result a completed job stored (a repeat after the commit). */
  stored: SupersedeResult | null;
  /** The job was `processing` at the attempt. */
  open: boolean;
  /** ... and its source still at the job's version (the cards were written). */
  ready: boolean;
  /** What this statement stored (null: it wrote nothing). */
  result: SupersedeResult | null;
}

/** One input card of the statement, deduplicated by key, its evidence resolved (null origin: the source itself). */
interface CardRow {
  ord: number;
  kind: CardToStore['kind'];
  cue: string | null;
  answer: string;
  cloze_text: string | null;
  normalized_key: string;
  evidence: { ordinal: number; source_kind: StudySourceKind | null; source_id: string | null; quote: string }[];
}

/**
 * Supersedes the source's cards with `input.cards` and completes the job (ST-4: zero cards stored →
 * completed with `all_dropped`, which blocks re-extracting that version), in ONE statement. The job
 * must be `processing` at attempt `input.attempt`; otherwise nothing is written and its state is
 * returned (a completed job returns the result it stored). A source no longer at the job's version
 * (or gone) skips the job `no_ready_explanation` and writes nothing else.
 *
 * The statement locks the job row, then the question row (the compare-and-set on its version: an
 * explanation written meanwhile waits for the commit, or wins when it committed first), then the
 * source's live cards; only when the job is open and the source ready does it retire the cards
 * whose key is gone, move the kept ones to this version and replace their evidence (the delete runs
 * before the insert of the new rows: the insert reads its count), insert the new cards (a live
 * duplicate of another source's card is skipped by the live-key index, ON CONFLICT DO NOTHING) with
 * their progress and evidence rows, set or clear the question's needs_review flag, and complete the
 * job with its result in the payload. The skip (a source already replaced, which stays replaced:
 * versions only grow) is a second statement.
 * @throws Error when the job does not exist; database errors as they come.
 */
export async function supersedeCards(db: Db, input: SupersedeInput): Promise<SupersedeResult> {
  const now = new Date();
  const rows: CardRow[] = [];
  const seen = new Set<string>();
  for (const card of input.cards) {
    if (seen.has(card.normalizedKey)) continue;
    seen.add(card.normalizedKey);
    rows.push({
      ord: rows.length, kind: card.kind, cue: card.cue, answer: card.answer, cloze_text: card.clozeText, normalized_key: card.normalizedKey,
      evidence: card.evidence.map((e, ordinal) => {
        const origin = retrievedOrigin(e.ref);
        return { ordinal, source_kind: origin?.kind ?? null, source_id: origin?.id ?? null, quote: e.quote };
      }),
    });
  }
  const flagIfNone = storableText(input.needsReview ?? `all_dropped: ${input.returned} cards returned, none kept`);
  const flagIfSome = input.needsReview === null ? null : storableText(input.needsReview);
  const allDropped = `every card was dropped by the guards (${input.returned} returned)`;
  const from = transitionGuard(STUDY_MEMO_CARD_JOB_STATES, 'completed', { from: ['processing'] });
  const [row] = await db.$queryRaw<SupersedeRow[]>`
    WITH job AS MATERIALIZED (
      SELECT id, user_id, source_kind, source_id, source_version, status, attempts, error_code, payload
      FROM study_memo_card_jobs WHERE id = ${input.jobId}::uuid FOR UPDATE
    ), open AS MATERIALIZED (
      SELECT * FROM job WHERE status = ANY(${from}::"StudyMemoCardJobStatus"[]) AND attempts = ${input.attempt}
    ), question AS MATERIALIZED (
      SELECT q.id, q.topic_id, q.ai_explanation IS NOT NULL AS explained, q.ai_explanation_generated_at AS version
      FROM study_questions q JOIN open o ON o.source_kind = 'study_question' AND q.id = o.source_id
      FOR UPDATE OF q
    ), knowledge AS MATERIALIZED (
      SELECT k.id, k.created_at AS version FROM knowledge_cards k JOIN open o ON o.source_kind = 'knowledge_card' AND k.id = o.source_id
    ), ready AS MATERIALIZED (
      SELECT o.id, o.user_id, o.source_kind, o.source_id, o.source_version, (SELECT topic_id FROM question) AS topic_id
      FROM open o
      WHERE EXISTS (SELECT 1 FROM question WHERE explained AND version = o.source_version)
         OR EXISTS (SELECT 1 FROM knowledge WHERE version = o.source_version)
    ), live AS MATERIALIZED (
      SELECT c.id, c.normalized_key FROM study_memo_cards c JOIN ready r ON c.source_kind = r.source_kind AND c.source_id = r.source_id
      WHERE c.deleted_at IS NULL
      FOR UPDATE OF c
    ), input AS MATERIALIZED (
      SELECT i.*, l.id AS kept_id
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS i(ord int, kind text, cue text, answer text, cloze_text text, normalized_key text, evidence jsonb)
      LEFT JOIN live l ON l.normalized_key = i.normalized_key
      WHERE EXISTS (SELECT 1 FROM ready)
    ), changed AS (
      UPDATE study_memo_cards c
      SET deleted_at = CASE WHEN l.kept THEN c.deleted_at ELSE ${now}::timestamptz(3) END,
          retired_by_job_id = CASE WHEN l.kept THEN c.retired_by_job_id ELSE r.id END,
          source_version = CASE WHEN l.kept THEN r.source_version ELSE c.source_version END
      FROM (SELECT id, EXISTS (SELECT 1 FROM input i WHERE i.kept_id = live.id) AS kept FROM live) l, ready r
      WHERE c.id = l.id
      RETURNING c.id, l.kept
    ), cleared AS (
      DELETE FROM study_memo_card_evidence e USING input i WHERE i.kept_id IS NOT NULL AND e.card_id = i.kept_id
      RETURNING e.id
    ), inserted AS (
      INSERT INTO study_memo_cards (id, user_id, topic_id, source_kind, source_id, source_version, kind, cue, answer, cloze_text, normalized_key, job_id, created_at)
      SELECT gen_random_uuid(), r.user_id, r.topic_id, r.source_kind, r.source_id, r.source_version,
             i.kind::"StudyMemoCardKind", i.cue, i.answer, i.cloze_text, i.normalized_key, r.id, ${now}::timestamptz(3)
      FROM input i CROSS JOIN ready r WHERE i.kept_id IS NULL ORDER BY i.ord
      ON CONFLICT DO NOTHING
      RETURNING id, normalized_key
    ), progress AS (
      INSERT INTO study_memo_card_progress (card_id, user_id, due)
      SELECT n.id, r.user_id, ${now}::timestamptz(3) FROM inserted n CROSS JOIN ready r
    ), evidence AS (
      INSERT INTO study_memo_card_evidence (id, card_id, ordinal, source_kind, source_id, quote)
      SELECT gen_random_uuid(), t.card_id, e.ordinal, COALESCE(e.source_kind::"StudySourceKind", r.source_kind), COALESCE(e.source_id::uuid, r.source_id), e.quote
      FROM (
        SELECT COALESCE(i.kept_id, n.id) AS card_id, i.evidence
        FROM input i LEFT JOIN inserted n ON i.kept_id IS NULL AND n.normalized_key = i.normalized_key
        WHERE i.kept_id IS NOT NULL OR n.id IS NOT NULL
      ) t
      CROSS JOIN ready r
      CROSS JOIN LATERAL jsonb_to_recordset(t.evidence) AS e(ordinal int, source_kind text, source_id text, quote text)
      WHERE (SELECT count(*) FROM cleared) >= 0
    ), counts AS (
      SELECT (SELECT count(*) FROM inserted)::int AS added,
             (SELECT count(*) FROM input WHERE kept_id IS NOT NULL)::int AS kept,
             (SELECT count(*) FROM changed WHERE NOT kept)::int AS retired,
             (SELECT count(*) FROM input)::int AS wanted
    ), outcome AS (
      SELECT c.added + c.kept = 0 AS nothing_stored, jsonb_build_object(
        'status', 'completed',
        'errorCode', CASE WHEN c.added + c.kept = 0 THEN 'all_dropped' END,
        'added', c.added, 'kept', c.kept, 'retired', c.retired,
        'dropped', CASE WHEN c.wanted - c.kept - c.added > 0
          THEN ${JSON.stringify(input.dropped)}::jsonb || jsonb_build_object('duplicate_of_live', COALESCE((${JSON.stringify(input.dropped)}::jsonb ->> 'duplicate_of_live')::int, 0) + c.wanted - c.kept - c.added)
          ELSE ${JSON.stringify(input.dropped)}::jsonb END
      ) AS result
      FROM counts c WHERE EXISTS (SELECT 1 FROM ready)
    ), flagged AS (
      UPDATE study_questions q
      SET needs_review = f.flag IS NOT NULL, needs_review_reason = f.flag,
          needs_review_at = CASE WHEN f.flag IS NOT NULL THEN ${now}::timestamptz(3) END, updated_at = ${now}::timestamptz(3)
      FROM (SELECT CASE WHEN o.nothing_stored THEN ${flagIfNone} ELSE ${flagIfSome}::text END AS flag FROM outcome o) f, ready r
      WHERE r.source_kind = 'study_question' AND q.id = r.source_id
    ), completed AS (
      UPDATE study_memo_card_jobs j
      SET status = 'completed', completed_at = ${now}::timestamptz(3), error_code = o.result ->> 'errorCode',
          error_message = CASE WHEN o.nothing_stored THEN ${allDropped} END,
          payload = COALESCE(j.payload, '{}'::jsonb) || jsonb_build_object('result', o.result, 'returned', ${input.returned}::int, 'contextRefs', ${JSON.stringify(input.contextRefs)}::jsonb)
      FROM ready r, outcome o WHERE j.id = r.id
      RETURNING o.result
    )
    SELECT j.status, j.error_code, j.source_kind, j.source_id::text, j.source_version, j.payload -> 'result' AS stored,
           EXISTS (SELECT 1 FROM open) AS open, EXISTS (SELECT 1 FROM ready) AS ready, (SELECT result FROM completed) AS result
    FROM job j`;
  if (!row) throw new Error(`study_memo_card_jobs ${input.jobId} does not exist`);
  if (!row.open) return row.stored ?? { status: row.status, errorCode: row.error_code, added: 0, kept: 0, retired: 0, dropped: {} };
  if (row.ready) {
    if (!row.result) throw new Error(`study_memo_card_jobs ${input.jobId}: the supersede statement completed nothing`);
    return row.result;
  }
  // Replaced (or gone) since the extraction read it: skipped, nothing else written.
  const reason = notReadyReason(await loadSource(db, row.source_kind, row.source_id), row.source_version) ?? 'the source is no longer at the job\'s version';
  await moveJob(db, input.jobId, 'skipped', { errorCode: 'no_ready_explanation', errorMessage: storableText(reason), completedAt: now }, { from: ['processing'], attempts: input.attempt });
  return { status: 'skipped', errorCode: 'no_ready_explanation', added: 0, kept: 0, retired: 0, dropped: { ...input.dropped } };
}
