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
import { evidenceOrigin, loadSource, notReadyReason } from './sources';

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
    if (job.source_kind === 'study_question') await tx.$queryRaw`SELECT 1 AS locked FROM study_questions WHERE id = ${job.source_id}::uuid FOR UPDATE`;
    const superseded = notReadyReason(await loadSource(tx, job.source_kind, job.source_id), job.source_version);
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
    if (retire.length > 0) {
      await tx.studyMemoCard.updateMany({ where: { id: { in: retire }, deletedAt: null }, data: { deletedAt: now, retiredByJobId: job.id } });
    }
    const topicId = await topicOf(tx, job.source_kind, job.source_id);
    let added = 0;
    let kept = 0;
    const seen = new Set<string>();
    for (const card of input.cards) {
      if (seen.has(card.normalizedKey)) continue;
      seen.add(card.normalizedKey);
      const keptId = liveByKey.get(card.normalizedKey);
      let cardId: string | undefined;
      if (keptId) {
        await tx.studyMemoCard.update({ where: { id: keptId }, data: { sourceVersion: job.source_version } });
        await tx.studyMemoCardEvidence.deleteMany({ where: { cardId: keptId } });
        cardId = keptId;
        kept += 1;
      } else {
        const [row] = await tx.$queryRaw<{ id: string }[]>`
          INSERT INTO study_memo_cards (id, user_id, topic_id, source_kind, source_id, source_version, kind, cue, answer, cloze_text, normalized_key, job_id, created_at)
          VALUES (gen_random_uuid(), ${job.user_id}::uuid, ${topicId}::uuid, ${job.source_kind}::"StudySourceKind", ${job.source_id}::uuid,
                  ${job.source_version}::timestamptz(3), ${card.kind}::"StudyMemoCardKind", ${card.cue}, ${card.answer}, ${card.clozeText},
                  ${card.normalizedKey}, ${job.id}::uuid, ${now})
          ON CONFLICT DO NOTHING
          RETURNING id::text`;
        if (!row) {
          dropped['duplicate_of_live'] = (dropped['duplicate_of_live'] ?? 0) + 1;
          continue;
        }
        cardId = row.id;
        await tx.studyMemoCardProgress.create({ data: { cardId, userId: job.user_id, due: now } });
        added += 1;
      }
      await tx.studyMemoCardEvidence.createMany({
        data: card.evidence.map((e, ordinal) => {
          const origin = evidenceOrigin(e.ref, source);
          return { cardId: cardId!, ordinal, sourceKind: origin.kind, sourceId: origin.id, quote: e.quote };
        }),
      });
    }
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

async function topicOf(tx: Prisma.TransactionClient, kind: StudySourceKind, id: string): Promise<string | null> {
  if (kind !== 'study_question') return null;
  const q = await tx.studyQuestion.findUnique({ where: { id }, select: { topicId: true } });
  return q?.topicId ?? null;
}
