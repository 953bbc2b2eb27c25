/**
 * The AI runtime boundary (SAN-7, SAN-8): every provider implements {@link AiRuntime}; answers are
 * validated with zod before anything is stored. Workflow-safe types only (no I/O here).
 */
import { z } from 'zod';
import type { MemoCardBatch, MemoCardExtractionInput } from '../domain/study/cards';
import type { StudyExplanation, StudyExplanationInput } from '../domain/study/explanation';

/** Embedding width for cards and TILs (SAN-7, SAN-9). */
export const EMBEDDING_DIMENSIONS = 1536;

/** Fixed category taxonomy; providers must answer one of these. */
export const CATEGORIES = [
  'Programming',
  'Web',
  'Tooling',
  'Testing',
  'Infrastructure',
  'Data',
  'AI/ML',
  'Security',
  'Design',
  'Product',
  'Science',
  'Business',
  'Other',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Validated result of a card analysis (SAN-7). `embedding` has exactly 1536 finite numbers. */
export const CardAnalysisSchema = z.object({
  title: z.string().trim().min(1).max(200),
  summary: z.string().trim().min(1).max(2000),
  tags: z.array(z.string().trim().toLowerCase().min(1).max(50)).min(1).max(10),
  category: z.enum(CATEGORIES),
  embedding: z.array(z.number().finite()).length(EMBEDDING_DIMENSIONS),
  /** Identity of the model that produced `embedding` (issue 11); absent means the local one. */
  embeddingModel: z.string().min(1).max(200).optional(),
});
export type CardAnalysis = z.infer<typeof CardAnalysisSchema>;

/** Validated result of a scrap refinement (SAN-8). */
export const RefineResultSchema = z.object({ refinedContent: z.string().min(1) });
export type RefineResult = z.infer<typeof RefineResultSchema>;

/** One knowledge card as source material for a TIL or quizzes (SAN-9, SAN-11). */
export interface SourceCard {
  cardId: string;
  title: string;
  summary: string;
  /** The scrap's content (normalised; refined content when available). */
  content: string;
}

/** Validated TIL of one day (SAN-9): markdown document and its 1536-d embedding. */
export const TilResultSchema = z.object({
  title: z.string().trim().min(1).max(200),
  tilMarkdown: z.string().trim().min(1).max(100_000),
  embedding: z.array(z.number().finite()).length(EMBEDDING_DIMENSIONS),
  /** Identity of the model that produced `embedding` (issue 11); absent means the local one. */
  embeddingModel: z.string().min(1).max(200).optional(),
});
export type TilResult = z.infer<typeof TilResultSchema>;

/** SAN-11 quiz types: OX (true/false statement, answer `O` or `X`) and SHORT_ANSWER (cloze). */
export const QUIZ_TYPES = ['OX', 'SHORT_ANSWER'] as const;
export type QuizTypeName = (typeof QUIZ_TYPES)[number];

/** One validated quiz; `sourceCardId` is one of the input cards. */
export const QuizSchema = z.object({
  type: z.enum(QUIZ_TYPES),
  question: z.string().trim().min(1).max(2000),
  answer: z.string().trim().min(1).max(500),
  explanation: z.string().trim().min(1).max(2000),
  sourceCardId: z.string().uuid(),
});
export type Quiz = z.infer<typeof QuizSchema>;

/** Input of an analysis or refinement: the scrap's normalised content and optional metadata. */
export interface ScrapText {
  content: string;
  title?: string | null;
  sourceUrl?: string | null;
}

/** Stable error codes of the AI boundary. */
export type AiErrorCode =
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'UPSTREAM_UNAVAILABLE'
  | 'MALFORMED_OUTPUT'
  | 'INVALID_EMBEDDING'
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'CONFIG';

/**
 * Classified failure of an AI call. `retryable` tells the activity layer whether Temporal should
 * retry; `retryAfterMs` carries the provider's Retry-After when it gave one.
 */
export class AiRuntimeError extends Error {
  override readonly name = 'AiRuntimeError';
  constructor(
    readonly code: AiErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A provider of AI answers. Methods reject with {@link AiRuntimeError} only. */
export interface AiRuntime {
  /** Provider name as configured (`local`, `openai`). */
  readonly provider: string;
  /** Identity of the model behind `embed` and the answers' embeddings (issue 11); absent means the local one. */
  readonly embeddingModel?: string;
  /** SAN-7: title, summary, tags, category and a 1536-d embedding of a scrap. */
  analyzeCard(input: ScrapText, signal?: AbortSignal): Promise<CardAnalysis>;
  /** SAN-8: cleaned-up content of a scrap (markdown and whitespace normalised). */
  refineScrap(input: ScrapText, signal?: AbortSignal): Promise<RefineResult>;
  /** SAN-9: title, markdown and 1536-d embedding of the TIL of `targetDate` (YYYY-MM-DD) from its cards. */
  generateTil(input: { targetDate: string; cards: SourceCard[] }, signal?: AbortSignal): Promise<TilResult>;
  /**
   * SAN-11: quizzes of the requested types from the cards. OX answers are `O` or `X`; a
   * SHORT_ANSWER's answer never appears in its question. Every quiz cites one input card.
   */
  generateQuizzes(input: { cards: SourceCard[]; types: QuizTypeName[] }, signal?: AbortSignal): Promise<Quiz[]>;
  /**
   * ST: a markdown explanation of a study question from the question, the user's answer and the
   * given context ({@link StudyExplanationInput}); validated with `StudyExplanationSchema`.
   * BAD_REQUEST (not retryable) for a blank question.
   */
  explainStudyQuestion(input: StudyExplanationInput, signal?: AbortSignal): Promise<StudyExplanation>;
  /**
   * ST-5: memo cards (basic cue → answer, cloze) from a question's explanation and context, each
   * with evidence quotes copied from the named passages; validated with `MemoCardBatchSchema`
   * (an invalid answer is MALFORMED_OUTPUT, the `parse_fail` class). At most `cardLimit(input)`
   * cards; none is a valid answer. The card guards (src/domain/study/guards.ts) run after this.
   * BAD_REQUEST (not retryable) for a blank explanation.
   */
  extractMemoCards(input: MemoCardExtractionInput, signal?: AbortSignal): Promise<MemoCardBatch>;
  /** 1536-d embeddings, one per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}
