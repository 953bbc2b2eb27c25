/**
 * The study domain's writes: topics (with `focused_at`), questions, and their
 * explanations. Every new explanation — the STUDY_EXPLANATION job's or one replaced by hand — is a
 * new source version of the question's memo cards: `ai_explanation_generated_at` is stamped
 * strictly later than the previous one (at the column's millisecond precision), so two quick
 * replacements can never share a version (ST-3) — and bumps `explanation_revision`. The
 * STUDY_EXPLANATION job records the revision it was asked for at enqueue and writes its explanation
 * only while the question still has it (a compare-and-set): an explanation written by hand after
 * the request wins, and the job completes SUPERSEDED having changed nothing.
 */
import type { StudyQuestion, StudyTopic } from '@prisma/client';
import type { DbClient } from '../../db/client';
import { enqueueAndStart, type EnqueueDeps } from '../../core/enqueue';
import { encodeEmbedding } from '../../db/vectors';
import { ST_ERRORS } from '../../domain/study/errors';
import type { DestinationPolicy } from '../../core/webhook-destination';
import { checkRequestWebhook } from '../../core/webhook-requests';

/** Dependencies of the explanation requests: the enqueue's and the destination rules of a `webhook` URL. */
export interface ExplanationRequestDeps extends EnqueueDeps {
  destinations: DestinationPolicy;
}

/** Creates a topic of `userId`. */
export function createTopic(db: DbClient, userId: string, name: string): Promise<StudyTopic> {
  return db.studyTopic.create({ data: { userId, name } });
}

/**
 * Focuses topic `topicId` of `userId` (`focused_at` = now; the poller serves the latest focus
 * first) or unfocuses it. @throws DomainError not-found STUDY_TOPIC_NOT_FOUND.
 */
export async function focusTopic(db: DbClient, userId: string, topicId: string, focused: boolean): Promise<StudyTopic> {
  const r = await db.studyTopic.updateManyAndReturn({ where: { id: topicId, userId }, data: { focusedAt: focused ? new Date() : null } });
  if (!r[0]) throw ST_ERRORS.problem('STUDY_TOPIC_NOT_FOUND', `topic ${topicId} not found`);
  return r[0];
}

/** A new question. */
export interface NewQuestion {
  question: string;
  userAnswer?: string | null | undefined;
  /** Enqueue its STUDY_EXPLANATION job (default true). */
  explain?: boolean | undefined;
  /** Per-request completion webhook URL of its STUDY_EXPLANATION job (only with a job). */
  webhook?: string | undefined;
}

/**
 * Creates a question in topic `topicId` of `userId` and, unless `explain` is false, its
 * STUDY_EXPLANATION job in the same transaction (started after commit, SAN-4). `webhook` (a
 * per-request completion webhook URL, src/core/webhook-requests.ts) is checked before the
 * transaction and kept for that job in it.
 * @throws DomainError 400 WEBHOOK_URL_REFUSED, 409 WEBHOOK_SIGNING_SECRET_MISSING (the webhook's
 *   checks); not-found STUDY_TOPIC_NOT_FOUND.
 */
export async function createQuestion(
  deps: ExplanationRequestDeps,
  userId: string,
  topicId: string,
  input: NewQuestion,
): Promise<{ question: StudyQuestion; explanationJobId: string | null }> {
  const { webhook } = input;
  if (webhook !== undefined) await checkRequestWebhook(deps.db, deps.destinations, userId, webhook);
  return enqueueAndStart(deps, async ({ tx, enqueue, undoWith, attachWebhook }) => {
    const topic = await tx.studyTopic.findFirst({ where: { id: topicId, userId }, select: { id: true } });
    if (!topic) throw ST_ERRORS.problem('STUDY_TOPIC_NOT_FOUND', `topic ${topicId} not found`);
    const question = await tx.studyQuestion.create({ data: { userId, topicId, question: input.question, userAnswer: input.userAnswer ?? null } });
    if (input.explain === false) return { question, explanationJobId: null };
    undoWith((t) => t.studyQuestion.deleteMany({ where: { id: question.id } }));
    const { job } = await enqueue({ jobType: 'STUDY_EXPLANATION', targetId: question.id, userId, targetVersion: question.explanationRevision });
    if (webhook !== undefined) await attachWebhook({ userId, url: webhook }, [job.jobId]);
    return { question, explanationJobId: job.jobId };
  });
}

/**
 * Enqueues a (new) STUDY_EXPLANATION job of question `questionId` of `userId` on the explanation's
 * current revision: the active one when there is one (SAN-2; it keeps the revision it was enqueued
 * on). `webhook` (a per-request completion webhook URL, src/core/webhook-requests.ts) is checked
 * before the transaction and kept in it for the job of the answer while that job is still active
 * (the new one, or the active one a repeat is answered with).
 * @throws DomainError 400 WEBHOOK_URL_REFUSED, 409 WEBHOOK_SIGNING_SECRET_MISSING (the webhook's
 *   checks); not-found STUDY_SOURCE_NOT_FOUND.
 */
export async function requestExplanation(deps: ExplanationRequestDeps, userId: string, questionId: string, webhook?: string): Promise<{ jobId: string; created: boolean }> {
  if (webhook !== undefined) await checkRequestWebhook(deps.db, deps.destinations, userId, webhook);
  return enqueueAndStart(deps, async ({ tx, enqueue, attachWebhook }) => {
    const q = await tx.studyQuestion.findFirst({ where: { id: questionId, userId }, select: { id: true, explanationRevision: true } });
    if (!q) throw ST_ERRORS.problem('STUDY_SOURCE_NOT_FOUND', `question ${questionId} not found`);
    const { job, created } = await enqueue({ jobType: 'STUDY_EXPLANATION', targetId: questionId, userId, targetVersion: q.explanationRevision });
    if (webhook !== undefined) await attachWebhook({ userId, url: webhook }, [job.jobId]);
    return { jobId: job.jobId, created };
  });
}

/** Options of {@link writeExplanation}. */
export interface ExplanationWrite {
  /** 1536 floats that replace the stored embedding. */
  embedding?: readonly number[];
  /** Write only while `explanation_revision` is this (a compare-and-set); absent or null: unconditional. */
  expectedRevision?: number | null;
}

/**
 * Writes a new explanation of question `questionId`, stamps its new version, strictly later than
 * the previous one (`greatest(now(), previous + 1 ms)`), and bumps its revision. Returns the new
 * version, or null when the question does not exist or its revision is not `expectedRevision`.
 */
export async function writeExplanation(
  db: DbClient,
  questionId: string,
  explanation: string,
  origin: 'ai' | 'manual',
  opts: ExplanationWrite = {},
): Promise<Date | null> {
  const bytes = opts.embedding ? new Uint8Array(encodeEmbedding(opts.embedding)) : null;
  const expected = opts.expectedRevision ?? null;
  const rows = await db.$queryRaw<{ version: Date }[]>`
    UPDATE study_questions
    SET ai_explanation = ${explanation},
        ai_explanation_generated_at = greatest(now(), COALESCE(ai_explanation_generated_at + interval '1 millisecond', now())),
        explanation_origin = ${origin}::"StudyExplanationOrigin",
        explanation_revision = explanation_revision + 1,
        embedding = COALESCE(${bytes}::bytea, embedding),
        updated_at = now()
    WHERE id = ${questionId}::uuid AND (${expected}::integer IS NULL OR explanation_revision = ${expected}::integer)
    RETURNING ai_explanation_generated_at AS version`;
  return rows[0]?.version ?? null;
}

/**
 * Replaces the explanation of question `questionId` of `userId` by hand: a new version (its cards
 * are re-extracted by the poller). @throws DomainError not-found STUDY_SOURCE_NOT_FOUND.
 */
export async function replaceExplanation(db: DbClient, userId: string, questionId: string, explanation: string): Promise<{ version: Date }> {
  const q = await db.studyQuestion.findFirst({ where: { id: questionId, userId }, select: { id: true } });
  if (!q) throw ST_ERRORS.problem('STUDY_SOURCE_NOT_FOUND', `question ${questionId} not found`);
  const version = await writeExplanation(db, questionId, explanation, 'manual');
  if (!version) throw ST_ERRORS.problem('STUDY_SOURCE_NOT_FOUND', `question ${questionId} not found`);
  return { version };
}
