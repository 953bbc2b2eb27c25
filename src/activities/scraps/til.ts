/**
 * Projection activities of TIL_GENERATION (SAN-9) and RECALL_QUIZ_GENERATION (SAN-11) on the `jobs`
 * task queue. Each result is written in the same transaction as its job's transition, keyed so that
 * a retried activity writes nothing twice. recall_quiz_generations.status mirrors its job: it is
 * set in the same transaction as every guarded async_jobs transition that changed something.
 */
import { log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import type { TilResult } from '../../ai/scraps/answers';
import { QUIZ_TYPES, type Quiz, type QuizTypeName } from '../../domain/scraps/quizzes';
import { LOCAL_EMBEDDING_MODEL } from '../../ai/embedding-models';
import type { DbClient } from '../../db/client';
import { encodeEmbedding } from '../../db/vectors';
import { enqueueIfNoneActive, transitionJob } from '../../core/projection';
import type { JobStarter, StartableJob } from '../../core/starter';
import type { StartOutcome } from '../../core/workflow-start';
import type { JobStatus } from '../../core/contracts';
import { mirrorGeneration as mirrorGenerationRow } from '../../services/scraps/targets';
import { cardIdsForLocalDate, isoDate } from '../../services/scraps/til-sources';
import { CORE_FAILURES } from '../../core/errors';
import { failure } from '../../core/failures';
import { SAN_FAILURES } from '../../domain/scraps/errors';

/** Dependencies of the TIL and recall-quiz projection activities. */
export interface TilActivityDeps {
  db: PrismaClient;
  starter: JobStarter;
}

/** The cards a job works on: the date (YYYY-MM-DD, user's time zone) and its card ids. */
export interface CollectedCards {
  targetDate: string;
  cardIds: string[];
}

/** Result of {@link TilActivities.beginRecallQuizJob}: `proceed` false when the job is terminal. */
export interface QuizBeginResult {
  proceed: boolean;
  status: JobStatus;
}

/** Sets the generation's status to its job's new status (call only when the job transition changed). */
function mirrorGeneration(tx: DbClient, generationId: string, status: JobStatus): Promise<void> {
  return mirrorGenerationRow(tx, generationId, status);
}

/** Builds the TIL and recall-quiz activities of the `jobs` task queue. */
export function createTilActivities({ db, starter }: TilActivityDeps) {
  return {
    /**
     * SAN-9: the summary's date and the ids of the user's cards created that local day. Read-only,
     * retryable; non-retryable SUMMARY_NOT_FOUND, NO_CARDS_FOR_DATE.
     */
    async collectTilCards(args: { summaryId: string }): Promise<CollectedCards> {
      const summary = await db.dailySummary.findUnique({ where: { id: args.summaryId }, select: { userId: true, targetDate: true } });
      if (!summary) throw failure(SAN_FAILURES, 'SUMMARY_NOT_FOUND', `daily summary ${args.summaryId} not found`);
      const targetDate = isoDate(summary.targetDate);
      const cardIds = await cardIdsForLocalDate(db, summary.userId, targetDate);
      if (cardIds.length === 0) throw failure(SAN_FAILURES, 'NO_CARDS_FOR_DATE', `no knowledge cards on ${targetDate}`);
      return { targetDate, cardIds };
    },

    /**
     * SAN-9 + SAN-11: in one transaction, stores the TIL on the summary (title, markdown, embedding,
     * source cards, generated_at), completes the job and, unless the summary already has one,
     * creates its automatic recall-quiz generation (both types) with a PENDING
     * RECALL_QUIZ_GENERATION job. Idempotency keys: the job's guarded transition and the summary
     * id (one automatic generation per summary). Returns the quiz job still to start, if any.
     * Non-retryable JOB_NOT_ACTIVE when the job was failed meanwhile.
     */
    async storeTil(args: { jobId: string; summaryId: string; userId: string; til: TilResult; sourceCardIds: string[] }): Promise<StartableJob | null> {
      const { jobId, summaryId, userId, til } = args;
      const quizJob = await db.$transaction(async (tx) => {
        const locked = await tx.$queryRaw<{ target_date: string }[]>`
          SELECT to_char(target_date, 'YYYY-MM-DD') AS target_date FROM daily_summaries
          WHERE id = ${summaryId}::uuid FOR UPDATE`;
        const targetDate = locked[0]?.target_date;
        if (!targetDate) throw failure(SAN_FAILURES, 'SUMMARY_NOT_FOUND', `daily summary ${summaryId} not found`);
        const t = await transitionJob(tx, jobId, 'COMPLETED');
        if (!t.changed && t.status !== 'COMPLETED') {
          throw failure(CORE_FAILURES, 'JOB_NOT_ACTIVE', `job ${jobId} is ${t.status ?? 'missing'}, not PROCESSING`);
        }
        if (t.changed) {
          await tx.dailySummary.update({
            where: { id: summaryId },
            data: {
              title: til.title,
              tilMarkdown: til.tilMarkdown,
              embedding: new Uint8Array(encodeEmbedding(til.embedding)),
              embeddingModel: til.embeddingModel ?? LOCAL_EMBEDDING_MODEL,
              sourceCardIds: args.sourceCardIds,
              generatedAt: new Date(),
            },
          });
        }
        let generation = await tx.recallQuizGeneration.findFirst({ where: { summaryId }, orderBy: { createdAt: 'asc' }, select: { id: true } });
        if (!generation) {
          generation = await tx.recallQuizGeneration.create({
            data: { userId, targetDate: new Date(`${targetDate}T00:00:00.000Z`), quizTypes: [...QUIZ_TYPES], summaryId },
            select: { id: true },
          });
          const { job } = await enqueueIfNoneActive(tx, { jobType: 'RECALL_QUIZ_GENERATION', targetId: generation.id, userId });
          return job;
        }
        return tx.asyncJob.findFirst({ where: { targetId: generation.id, jobType: 'RECALL_QUIZ_GENERATION', status: 'PENDING' } });
      });
      activityLog.info('til stored', { jobId, summaryId, quizJobId: quizJob?.jobId });
      return quizJob ? { jobId: quizJob.jobId, jobType: quizJob.jobType, targetId: quizJob.targetId, userId: quizJob.userId, retryCount: quizJob.retryCount } : null;
    },

    /** Starts the workflow of a committed job; idempotent by workflow ID. Retryable. */
    async startCommittedJob(job: StartableJob): Promise<StartOutcome> {
      const outcome = await starter.start(job);
      activityLog.info('job started', { jobId: job.jobId, jobType: job.jobType, outcome });
      return outcome;
    },

    /**
     * SAN-11: PENDING → PROCESSING of the job and, in the same transaction, of its
     * generation. A terminal job means a late duplicate start. Non-retryable JOB_NOT_FOUND.
     */
    async beginRecallQuizJob(args: { jobId: string; generationId: string }): Promise<QuizBeginResult> {
      return db.$transaction(async (tx) => {
        const r = await transitionJob(tx, args.jobId, 'PROCESSING');
        if (r.status === null) throw failure(CORE_FAILURES, 'JOB_NOT_FOUND', `job ${args.jobId} not found`);
        if (r.changed) await mirrorGeneration(tx, args.generationId, 'PROCESSING');
        return { proceed: r.status === 'PROCESSING', status: r.status };
      });
    },

    /**
     * SAN-11: the generation's date and quiz types and the ids of that date's cards in the user's
     * time zone. Read-only; non-retryable GENERATION_NOT_FOUND, NO_CARDS_FOR_DATE.
     */
    async collectQuizCards(args: { generationId: string }): Promise<CollectedCards & { types: QuizTypeName[] }> {
      const g = await db.recallQuizGeneration.findUnique({ where: { id: args.generationId }, select: { userId: true, targetDate: true, quizTypes: true } });
      if (!g) throw failure(SAN_FAILURES, 'GENERATION_NOT_FOUND', `recall quiz generation ${args.generationId} not found`);
      const targetDate = isoDate(g.targetDate);
      const cardIds = await cardIdsForLocalDate(db, g.userId, targetDate);
      if (cardIds.length === 0) throw failure(SAN_FAILURES, 'NO_CARDS_FOR_DATE', `no knowledge cards on ${targetDate}`);
      return { targetDate, cardIds, types: g.quizTypes };
    },

    /**
     * SAN-11: stores the quizzes (position = index; unique (generation_id, position), duplicates
     * skipped) and completes the job and the generation, in one transaction. Idempotent.
     * Non-retryable JOB_NOT_ACTIVE when the job was failed meanwhile. Returns the stored count.
     */
    async storeRecallQuizzes(args: { jobId: string; generationId: string; quizzes: Quiz[] }): Promise<number> {
      const { jobId, generationId, quizzes } = args;
      const count = await db.$transaction(async (tx) => {
        const t = await transitionJob(tx, jobId, 'COMPLETED');
        if (!t.changed && t.status !== 'COMPLETED') {
          throw failure(CORE_FAILURES, 'JOB_NOT_ACTIVE', `job ${jobId} is ${t.status ?? 'missing'}, not PROCESSING`);
        }
        await tx.recallQuiz.createMany({
          data: quizzes.map((q, position) => ({
            generationId, position, type: q.type, question: q.question, answer: q.answer,
            explanation: q.explanation, sourceCardId: q.sourceCardId,
          })),
          skipDuplicates: true,
        });
        if (t.changed) await mirrorGeneration(tx, generationId, 'COMPLETED');
        return tx.recallQuiz.count({ where: { generationId } });
      });
      activityLog.info('recall quizzes stored', { jobId, generationId, count });
      return count;
    },

    /** SAN-11: PENDING|PROCESSING → FAILED of the job and its generation, one transaction. */
    async failRecallQuizJob(args: { jobId: string; generationId: string; errorMessage: string }): Promise<JobStatus | null> {
      const r = await db.$transaction(async (tx) => {
        const t = await transitionJob(tx, args.jobId, 'FAILED', args.errorMessage);
        if (t.changed) await mirrorGeneration(tx, args.generationId, 'FAILED');
        return t;
      });
      activityLog.warn('recall quiz job failed', { jobId: args.jobId, changed: r.changed, errorMessage: args.errorMessage });
      return r.status;
    },
  };
}

/** Type of the TIL and recall-quiz `jobs` activities, for `proxyActivities` in workflows. */
export type TilActivities = ReturnType<typeof createTilActivities>;
