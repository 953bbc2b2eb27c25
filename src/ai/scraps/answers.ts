/**
 * What the scraps family asks of the AI and what it gets back (SAN-7, SAN-8, SAN-9): the inputs
 * and the zod schemas every answer is validated with before anything is stored. Quizzes (SAN-11)
 * are in src/domain/scraps/quizzes.ts. Workflow-safe (no I/O here).
 */
import { z } from 'zod';
import { EMBEDDING_DIMENSIONS } from '../types';

/** SAN-7 fixed category taxonomy; an analysis answers one of these. */
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
  /** Identity of the model that produced `embedding`; absent means the local one. */
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
  /** Identity of the model that produced `embedding`; absent means the local one. */
  embeddingModel: z.string().min(1).max(200).optional(),
});
export type TilResult = z.infer<typeof TilResultSchema>;

/** Input of an analysis or refinement: the scrap's normalised content and optional metadata. */
export interface ScrapText {
  content: string;
  title?: string | null;
  sourceUrl?: string | null;
}
