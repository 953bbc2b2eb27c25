/**
 * The AI runtime boundary (SAN-7, SAN-8): every provider implements {@link AiRuntime}; answers are
 * validated with zod before anything is stored. Workflow-safe types only (no I/O here).
 */
import { z } from 'zod';

/** Embedding width for cards and TILs (SAN-7, SAN-9). */
export const EMBEDDING_DIMENSIONS = 1536;

/** Fixed category taxonomy; providers must answer one of these. */
export const CATEGORIES = [
  'Programming',
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
});
export type CardAnalysis = z.infer<typeof CardAnalysisSchema>;

/** Validated result of a scrap refinement (SAN-8). */
export const RefineResultSchema = z.object({ refinedContent: z.string().min(1) });
export type RefineResult = z.infer<typeof RefineResultSchema>;

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
  /** SAN-7: title, summary, tags, category and a 1536-d embedding of a scrap. */
  analyzeCard(input: ScrapText, signal?: AbortSignal): Promise<CardAnalysis>;
  /** SAN-8: cleaned-up content of a scrap (markdown and whitespace normalised). */
  refineScrap(input: ScrapText, signal?: AbortSignal): Promise<RefineResult>;
  /** 1536-d embeddings, one per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}
