/** zod schemas of the study family's routes, shared by its route modules. */
import type { StudyMemoCard, StudyMemoCardEvidence, StudyMemoCardJob, StudyQuestion, StudyTopic } from '@prisma/client';
import { z } from 'zod';
import { VISIBLE_TEXT_PATTERN as VISIBLE } from '../../../core/blank';

/** A topic name. */
export const TopicName = z.string().min(1).max(200).regex(VISIBLE, 'must not be blank');
/** Question, answer and explanation texts (code units, as zod counts). */
export const QuestionText = z.string().min(1).max(4_000).regex(VISIBLE, 'must not be blank');
export const AnswerText = z.string().max(8_000);
export const ExplanationText = z.string().min(1).max(20_000).regex(VISIBLE, 'must not be blank');

/** A study topic. */
export const TopicSchema = z
  .object({ topicId: z.uuid(), name: z.string(), focusedAt: z.iso.datetime().nullable(), createdAt: z.iso.datetime() })
  .meta({ id: 'StudyTopic' });

/** A study question with its explanation (the source version is `explanationVersion`). */
export const QuestionSchema = z
  .object({
    questionId: z.uuid(),
    topicId: z.uuid(),
    question: z.string(),
    userAnswer: z.string().nullable(),
    explanation: z.string().nullable(),
    explanationVersion: z.iso.datetime().nullable().describe('ai_explanation_generated_at: the source version of the memo cards'),
    explanationOrigin: z.enum(['ai', 'manual']).nullable(),
    needsReview: z.boolean(),
    needsReviewReason: z.string().nullable(),
    needsReviewAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'StudyQuestion' });

/** One evidence quote of a card. */
export const EvidenceSchema = z.object({ sourceKind: z.enum(['study_question', 'knowledge_card']), sourceId: z.uuid(), quote: z.string() });

/** A memo card with its evidence. */
export const MemoCardSchema = z
  .object({
    cardId: z.uuid(),
    kind: z.enum(['basic', 'cloze']),
    cue: z.string().nullable(),
    answer: z.string(),
    clozeText: z.string().nullable(),
    sourceKind: z.enum(['study_question', 'knowledge_card']),
    sourceId: z.uuid(),
    sourceVersion: z.iso.datetime(),
    topicId: z.uuid().nullable(),
    live: z.boolean(),
    createdAt: z.iso.datetime(),
    retiredAt: z.iso.datetime().nullable(),
    evidence: z.array(EvidenceSchema),
  })
  .meta({ id: 'StudyMemoCard' });

/** An extraction job (ST-1) as the API shows it. */
export const MemoCardJobSchema = z
  .object({
    jobId: z.uuid(),
    sourceKind: z.enum(['study_question', 'knowledge_card']),
    sourceId: z.uuid(),
    sourceVersion: z.iso.datetime(),
    kind: z.literal('card_extract'),
    status: z.enum(['pending', 'processing', 'completed', 'failed', 'skipped']),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    errorCode: z.string().nullable(),
    errorMessage: z.string().nullable(),
    dropped: z.record(z.string(), z.number().int()).describe('cards dropped by the guards, by reason'),
    cards: z.object({ added: z.number().int(), kept: z.number().int(), retired: z.number().int() }).nullable(),
    createdAt: z.iso.datetime(),
    startedAt: z.iso.datetime().nullable(),
    completedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'StudyMemoCardJob' });

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The API view of a topic. */
export function topicView(t: StudyTopic): z.infer<typeof TopicSchema> {
  return { topicId: t.id, name: t.name, focusedAt: iso(t.focusedAt), createdAt: t.createdAt.toISOString() };
}

/** The API view of a question. */
export function questionView(q: StudyQuestion): z.infer<typeof QuestionSchema> {
  return {
    questionId: q.id, topicId: q.topicId, question: q.question, userAnswer: q.userAnswer, explanation: q.aiExplanation,
    explanationVersion: iso(q.aiExplanationGeneratedAt), explanationOrigin: q.explanationOrigin, needsReview: q.needsReview,
    needsReviewReason: q.needsReviewReason, needsReviewAt: iso(q.needsReviewAt), createdAt: q.createdAt.toISOString(),
  };
}

/** The API view of a card with its evidence rows (in order). */
export function memoCardView(c: StudyMemoCard & { evidence: StudyMemoCardEvidence[] }): z.infer<typeof MemoCardSchema> {
  return {
    cardId: c.id, kind: c.kind, cue: c.cue, answer: c.answer, clozeText: c.clozeText, sourceKind: c.sourceKind, sourceId: c.sourceId,
    sourceVersion: c.sourceVersion.toISOString(), topicId: c.topicId, live: c.deletedAt === null, createdAt: c.createdAt.toISOString(),
    retiredAt: iso(c.deletedAt),
    evidence: [...c.evidence].sort((a, b) => a.ordinal - b.ordinal).map((e) => ({ sourceKind: e.sourceKind, sourceId: e.sourceId, quote: e.quote })),
  };
}

/** The API view of an extraction job: its payload's result as `cards` and `dropped`. */
export function memoCardJobView(j: StudyMemoCardJob): z.infer<typeof MemoCardJobSchema> {
  const result = (j.payload as { result?: { added?: number; kept?: number; retired?: number; dropped?: Record<string, number> } } | null)?.result;
  return {
    jobId: j.id, sourceKind: j.sourceKind, sourceId: j.sourceId, sourceVersion: j.sourceVersion.toISOString(), kind: j.kind, status: j.status,
    attempts: j.attempts, maxAttempts: j.maxAttempts, errorCode: j.errorCode, errorMessage: j.errorMessage,
    dropped: result?.dropped ?? {},
    cards: result ? { added: result.added ?? 0, kept: result.kept ?? 0, retired: result.retired ?? 0 } : null,
    createdAt: j.createdAt.toISOString(), startedAt: iso(j.startedAt), completedAt: iso(j.completedAt),
  };
}
