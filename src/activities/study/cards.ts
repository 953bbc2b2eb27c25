/**
 * Activities of the study family's own `study-cards` task queue (ST-3 … ST-6): the poll, the
 * extraction job's bookkeeping (guarded writes of study_memo_card_jobs), the extraction call
 * (context gathering, the AI provider, the card guards) and the supersede. Nothing here is shared
 * with the `ai` queue of the explanation jobs, so neither can starve the other.
 */
import { log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import type { StudyAi } from '../../ai/study';
import { toAiFailure } from '../../ai/failures';
import { NO_BOILERPLATE } from '../../domain/study/relevance';
import type { StudyConfig as Config } from '../../config/study';
import { failure } from '../../core/failures';
import { heartbeat, withHeartbeat } from '../../core/heartbeat';
import { reconcile } from '../../core/reconciler';
import { extractionPassages, parseCloze, type MemoCard, type MemoCardExtractionInput } from '../../domain/study/cards';
import { ST_FAILURES, type ExtractionErrorCode } from '../../domain/study/errors';
import { batchVerdict, guardMemoCards } from '../../domain/study/guards';
import { pollSources, stalePendingJobs, type EnqueuedJob } from '../../services/study/enqueue';
import { abandonJob, beginAttempt, failAttempt, failCallAttempt, skipAttempt, type BeginResult, type JobState } from '../../services/study/jobs';
import { loadSource, notReadyReason, relatedDistanceOf, retrieveRelated } from '../../services/study/sources';
import { supersedeCards, type CardToStore, type SupersedeResult } from '../../services/study/supersede';
import { extractInputOf } from '../../services/study/start';
import { STUDY_CARD_EXTRACT_JOB_TYPE, type StudyCardExtractInput, type StudyCardPollInput, type StudySourceKind } from '../../domain/study/contracts';

/** Dependencies of the `study-cards` activities. */
export interface StudyCardActivityDeps {
  db: PrismaClient;
  /** The study port's embedding and memo-card methods (src/ai/study, either provider); its embedding model sets the retrieval score's unit. */
  ai: Pick<StudyAi, 'embed' | 'extractMemoCards'> & Partial<Pick<StudyAi, 'embeddingModel'>>;
  config: Config;
}

/** One job the poll hands its workflow: the workflow ID, the extraction's whole input, and its DC-4 search attributes. */
export interface PolledJob {
  workflowId: string;
  input: StudyCardExtractInput;
  /** JobType / TargetId / UserId of the child (absent: none set, e.g. a test server without them). */
  searchAttributes?: { jobType: string; targetId: string; userId: string };
}

/** What an extraction call returns for the supersede (guarded cards and the drop counts). */
export interface ExtractedCards {
  cards: CardToStore[];
  returned: number;
  dropped: Record<string, number>;
  needsReview: string | null;
  contextRefs: string[];
}

/**
 * What one `runStudyCardAttempt` ended with: the attempt was not begun (the row's state says why),
 * the cards were stored (the supersede's result), or they were extracted but not stored.
 */
export type StudyCardAttemptOutcome =
  | { outcome: 'not-begun'; state: BeginResult }
  | { outcome: 'stored'; stored: SupersedeResult }
  | { outcome: 'extracted'; extracted: ExtractedCards };

/** Plain fields of a guarded card (ST-5): a cloze card's answer is its deletions' answers. */
export function toStoredCard(card: MemoCard, key: string): CardToStore {
  const evidence = card.evidence.map((e) => ({ ref: e.ref, quote: e.quote }));
  if (card.kind === 'basic') return { kind: 'basic', cue: card.cue, answer: card.answer, clozeText: null, normalizedKey: key, evidence };
  const answers = [...new Set((parseCloze(card.clozeText) ?? []).map((d) => d.answer))];
  return { kind: 'cloze', cue: null, answer: answers.join(' · '), clozeText: card.clozeText, normalizedKey: key, evidence };
}

/** Builds the `study-cards` task-queue activities. */
export function createStudyCardActivities({ db, ai, config }: StudyCardActivityDeps) {
  const toPolled = (j: EnqueuedJob): PolledJob => ({
    workflowId: j.workflowId,
    input: extractInputOf(config, j),
    searchAttributes: { jobType: STUDY_CARD_EXTRACT_JOB_TYPE, targetId: j.sourceId, userId: j.userId },
  });

  /** The extraction call of {@link StudyCardActivities.extractStudyCards}; `beats`: a heartbeat after the embedding and after the AI call too. */
  const extract = async (args: { jobId: string; attempt: number }, beats: boolean): Promise<ExtractedCards> => {
    const job = await db.studyMemoCardJob.findUnique({ where: { id: args.jobId } });
    if (!job) throw failure(ST_FAILURES, 'STUDY_JOB_NOT_FOUND', `study_memo_card_jobs ${args.jobId} does not exist`);
    const source = await loadSource(db, job.sourceKind as StudySourceKind, job.sourceId);
    const notReady = notReadyReason(source, job.sourceVersion);
    if (notReady || !source?.explanation) {
      throw failure(ST_FAILURES, 'STUDY_EXTRACTION_ATTEMPT_FAILED', notReady ?? 'no explanation', { details: [{ code: 'no_ready_explanation' }] });
    }
    const limits = config.study.extract;
    return withHeartbeat(async (signal) => {
      const [query] = await ai.embed([`${source.question}\n${source.explanation}`], signal);
      if (beats) heartbeat();
      const retrieved = query
        ? await retrieveRelated(db, source, query, { limit: limits.retrievalLimit, scanLimit: limits.retrievalScanLimit, relatedDistance: relatedDistanceOf(ai.embeddingModel) })
        : { passages: [], boilerplate: NO_BOILERPLATE, belowFloor: 0 };
      const related = retrieved.passages;
      const request: MemoCardExtractionInput = {
        topic: source.topicName,
        question: source.question,
        userAnswer: source.userAnswer,
        explanation: source.explanation!,
        related: related.map((p) => ({ ref: p.ref, text: p.text })),
        maxCards: limits.maxCards,
      };
      const batch = await ai.extractMemoCards(request, signal);
      if (beats) heartbeat();
      const liveOthers = await db.studyMemoCard.findMany({
        where: { userId: source.userId, deletedAt: null, NOT: { sourceKind: source.kind, sourceId: source.id } },
        select: { normalizedKey: true },
      });
      const outcome = guardMemoCards({
        cards: batch.cards,
        passages: extractionPassages(request),
        liveKeys: liveOthers.map((c) => c.normalizedKey),
        relevance: { passageScores: new Map(related.map((p) => [p.ref, p.score])), boilerplate: retrieved.boilerplate },
      });
      const verdict = batchVerdict(outcome, batch.cards.length);
      const dropped = Object.fromEntries(Object.entries(outcome.droppedByReason).filter(([, n]) => n > 0));
      activityLog.info('memo cards extracted', { jobId: args.jobId, returned: batch.cards.length, kept: outcome.kept.length, dropped, contextBelowFloor: retrieved.belowFloor });
      return {
        cards: outcome.kept.map((k) => toStoredCard(k.card, k.key)),
        returned: batch.cards.length,
        dropped,
        needsReview: verdict.needsReview ? verdict.reason : null,
        contextRefs: related.map((p) => p.ref),
      };
    }, toAiFailure);
  };

  return {
    /**
     * ST-3 one poll: enqueues at most `limit` ready source versions in one statement and lists
     * pending jobs older than `restartGraceSeconds` (a lost start: a reconcile pass whose restart
     * is the workflow's child start); the workflow starts them all.
     * Idempotent by the database (a repeat enqueues only what is still missing).
     */
    async pollStudyCardSources(input: StudyCardPollInput): Promise<{ enqueued: PolledJob[]; stale: PolledJob[] }> {
      const enqueued = await pollSources(db, { limit: input.limit, sourceKinds: input.sourceKinds, maxAttempts: config.study.extract.maxAttempts });
      const fresh = new Set(enqueued.map((j) => j.jobId));
      // The reconciler's rule for lost extraction starts: the poll workflow restarts each one as a child.
      const stale: PolledJob[] = [];
      await reconcile<EnqueuedJob, 'handed-to-workflow' | 'error'>({
        rule: 'restart-stale-extractions',
        lost: async () => (await stalePendingJobs(db, input.restartGraceSeconds, input.limit)).filter((j) => !fresh.has(j.jobId)),
        async settle(job) {
          stale.push(toPolled(job));
          return 'handed-to-workflow';
        },
        failed: 'error',
        ids: (job) => ({ jobId: job.jobId }),
      }, activityLog);
      return { enqueued: enqueued.map(toPolled), stale };
    },

    /** ST-4 begins attempt `attempt` of the job (idempotent per attempt); skips it `no_ready_explanation` when the source is not ready. */
    async beginStudyCardAttempt(args: { jobId: string; attempt: number }): Promise<BeginResult | null> {
      return beginAttempt(db, args.jobId, args.attempt);
    },

    /** ST-4 records a failed attempt with its code; `final` closes the job `failed`. Idempotent per attempt. */
    async failStudyCardAttempt(args: { jobId: string; attempt: number; code: ExtractionErrorCode; message: string; final: boolean }): Promise<JobState | null> {
      return failAttempt(db, args);
    },

    /** ST-4 skips the job `no_ready_explanation` (its source stopped being ready during attempt `attempt`). Idempotent. */
    async skipStudyCardJob(args: { jobId: string; attempt: number; message: string }): Promise<JobState | null> {
      return skipAttempt(db, args.jobId, args.attempt, args.message);
    },

    /** Closes an unfinished job `failed` (`unknown`) after its workflow was cancelled. */
    async abandonStudyCardJob(args: { jobId: string; message: string }): Promise<JobState | null> {
      return abandonJob(db, args.jobId, 'unknown', args.message);
    },

    /**
     * ST-5 one extraction call (heartbeating): gathers the context (the source's explanation,
     * question and answer, and the ST_RETRIEVAL_LIMIT nearest of the user's other questions and
     * knowledge cards by embedding), asks the AI provider for cards, and runs the card guards
     * (numbers in evidence, no answer leak, no duplicate in the batch or of the user's live cards of
     * other sources). Reads only. AI errors become `AI_<code>` failures (the workflow maps them to
     * ST-4 codes); a source not ready by then fails STUDY_EXTRACTION_ATTEMPT_FAILED `no_ready_explanation`.
     */
    async extractStudyCards(args: { jobId: string; attempt: number }): Promise<ExtractedCards> {
      return extract(args, true);
    },

    /**
     * ST-4 … ST-6 one whole attempt of an extraction, the only activity of a clean run: begins
     * attempt `attempt` in the row (as `beginStudyCardAttempt`; a refusal — the row closed, out of
     * attempts, or just skipped `no_ready_explanation` — is returned as `not-begun`), extracts as
     * `extractStudyCards` (its failures thrown the same way), then supersedes and completes the job
     * as `storeStudyCards` (`stored`). A store that throws returns the cards instead (`extracted`),
     * for the workflow to store with its projection retries, so a database failure there never
     * costs an attempt; the cards are in the history only then. Idempotent per attempt (each step is).
     */
    async runStudyCardAttempt(args: { jobId: string; attempt: number }): Promise<StudyCardAttemptOutcome> {
      // Beats through the begin and the store too: a slow database is not a dead worker.
      return withHeartbeat<StudyCardAttemptOutcome>(async () => {
        const begin = await beginAttempt(db, args.jobId, args.attempt);
        if (!begin) throw failure(ST_FAILURES, 'STUDY_JOB_NOT_FOUND', `study_memo_card_jobs ${args.jobId} does not exist`);
        if (!begin.proceed) return { outcome: 'not-begun', state: begin };
        const extracted = await extract(args, false);
        try {
          const stored = await supersedeCards(db, { ...args, ...extracted });
          activityLog.info('memo cards superseded', { jobId: args.jobId, ...stored });
          return { outcome: 'stored', stored };
        } catch (err) {
          activityLog.warn('memo cards extracted but not stored; the workflow stores them', { jobId: args.jobId, error: String(err) });
          return { outcome: 'extracted', extracted };
        }
      });
    },

    /** ST-4 records a failed `runStudyCardAttempt` (begun or not) with its code; max_attempts reached closes the job `failed`. Idempotent per attempt. */
    async failStudyCardCall(args: { jobId: string; attempt: number; code: ExtractionErrorCode; message: string }): Promise<JobState | null> {
      return failCallAttempt(db, args);
    },

    /**
     * ST-5 supersede and completion in ONE transaction (zero cards → completed `all_dropped`). Only
     * from `processing` at `attempt`; a repeat after the commit returns the stored result.
     */
    async storeStudyCards(args: { jobId: string; attempt: number } & ExtractedCards): Promise<SupersedeResult> {
      const r = await supersedeCards(db, args);
      activityLog.info('memo cards superseded', { jobId: args.jobId, ...r });
      return r;
    },
  };
}

/** Type of the `study-cards` activities, for `proxyActivities` in workflows. */
export type StudyCardActivities = ReturnType<typeof createStudyCardActivities>;
