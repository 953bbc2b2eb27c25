/**
 * The STUDY_EXPLANATION job's activities: the AI call on the `ai` queue (through the
 * AI provider boundary, read-only) and the store on the `jobs` queue (the explanation, its new
 * version and the job's COMPLETED in one transaction).
 */
import { log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import { toAiFailure } from '../../ai/failures';
import type { StudyAi } from '../../ai/study';
import type { StudyConfig as Config } from '../../config/study';
import { failure } from '../../core/failures';
import { withHeartbeat } from '../../core/heartbeat';
import { ST_FAILURES } from '../../domain/study/errors';
import { writeExplanation } from '../../services/study/questions';
import { relatedDistanceOf, retrieveRelated } from '../../services/study/sources';
import { completeWith } from '../core/jobs';
import { markJobResult } from '../../core/projection';

/** Dependencies of the `ai`-queue explanation activity. */
export interface StudyExplanationAiDeps {
  ai: Pick<StudyAi, 'explainStudyQuestion' | 'embed'> & Partial<Pick<StudyAi, 'embeddingModel'>>;
  db: PrismaClient;
  /** Read when the activity runs: the retrieval limits `study.extract.retrievalLimit` / `retrievalScanLimit` (ST_RETRIEVAL_*). */
  config: Pick<Config, 'study'>;
}

/** Longest retrieved passage handed to the explanation, in code points. */
const EXPLANATION_CONTEXT_CHARS = 4_000;

/** Builds the study family's `ai` task-queue activities. */
export function createStudyExplanationAiActivities({ ai, db, config }: StudyExplanationAiDeps) {
  return {
    /**
     * The explanation of question `questionId` (markdown) from the question, the user's answer and
     * the nearest of the user's own source material, their knowledge cards (retrieval by the
     * embedding of the question and answer, at most ST_RETRIEVAL_LIMIT passages), and the 1536-d embedding of the question with its
     * explanation (for later retrieval, ST-5). Reads only. Retry class from the provider;
     * non-retryable STUDY_QUESTION_NOT_FOUND.
     */
    async explainStudyQuestion(args: { questionId: string }): Promise<{ explanation: string; embedding: number[] }> {
      const q = await db.studyQuestion.findUnique({ where: { id: args.questionId }, include: { topic: { select: { name: true } } } });
      if (!q) throw failure(ST_FAILURES, 'STUDY_QUESTION_NOT_FOUND', `study question ${args.questionId} not found`);
      return withHeartbeat(async (signal) => {
        const [probe] = await ai.embed([`${q.topic.name}\n${q.question}\n${q.userAnswer ?? ''}`], signal);
        const retrieved = probe
          ? await retrieveRelated(db, { kind: 'study_question', id: q.id, userId: q.userId }, probe, {
            limit: config.study.extract.retrievalLimit,
            scanLimit: config.study.extract.retrievalScanLimit,
            maxChars: EXPLANATION_CONTEXT_CHARS,
            // The user's source material only: other questions' explanations are derived from it already.
            kinds: ['knowledge_card'],
            relatedDistance: relatedDistanceOf(ai.embeddingModel),
          })
          : undefined;
        const related = retrieved?.passages ?? [];
        const input = { topic: q.topic.name, question: q.question, userAnswer: q.userAnswer, related: related.map((p) => ({ ref: p.ref, text: p.text })) };
        const { explanation } = await ai.explainStudyQuestion(input, signal);
        const [embedding] = await ai.embed([`${q.question}\n${explanation}`], signal);
        return { explanation, embedding: embedding ?? [] };
      }, toAiFailure);
    },
  };
}

/** Builds the study family's `jobs` task-queue activities. */
export function createStudyExplanationActivities({ db }: { db: PrismaClient }) {
  return {
    /**
     * Stores the explanation of `questionId` with a new source version (strictly later
     * ai_explanation_generated_at, origin `ai`) and completes the job, in one transaction. The
     * write is a compare-and-set on the explanation revision the job was enqueued on: when the
     * explanation was written since (by hand), nothing is written and the job completes with
     * result code SUPERSEDED. Idempotency key: jobId (a repeat finds the job COMPLETED and writes
     * nothing: never a second version). Returns the question's version (ISO 8601).
     */
    async storeStudyExplanation(args: { jobId: string; questionId: string; explanation: string; embedding: number[] }): Promise<string> {
      let superseded = false;
      const version = await completeWith(db, args.jobId, async (tx) => {
        const job = await tx.asyncJob.findUnique({ where: { jobId: args.jobId }, select: { status: true, targetVersion: true } });
        const current = () => tx.studyQuestion.findUnique({ where: { id: args.questionId }, select: { aiExplanationGeneratedAt: true } });
        if (job?.status !== 'PROCESSING') {
          // A repeat after the commit: the version this job stored (or a later one); nothing is written.
          return (await current())?.aiExplanationGeneratedAt ?? null;
        }
        const embedding = args.embedding.length > 0 ? args.embedding : undefined;
        const written = await writeExplanation(tx, args.questionId, args.explanation, 'ai', { embedding, expectedRevision: job.targetVersion });
        if (written) return written;
        const q = await current();
        if (!q) return null;
        superseded = true;
        await markJobResult(tx, args.jobId, 'SUPERSEDED');
        return q.aiExplanationGeneratedAt;
      });
      if (!version) throw failure(ST_FAILURES, 'STUDY_QUESTION_NOT_FOUND', `study question ${args.questionId} not found (or job ${args.jobId} not active)`);
      const ids = { jobId: args.jobId, questionId: args.questionId, version: version.toISOString() };
      if (superseded) activityLog.info('study explanation superseded: the explanation was written after the job was enqueued; nothing stored', ids);
      else activityLog.info('study explanation stored', ids);
      return version.toISOString();
    },
  };
}

/** Types for `proxyActivities`. */
export type StudyExplanationAiActivities = ReturnType<typeof createStudyExplanationAiActivities>;
export type StudyExplanationActivities = ReturnType<typeof createStudyExplanationActivities>;
