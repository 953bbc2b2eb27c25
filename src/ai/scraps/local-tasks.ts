/**
 * The scraps family's local tasks (SAN-7, SAN-8, SAN-9, SAN-11): card analysis, refinement, the
 * TIL of a day and recall quizzes, extractive and deterministic. The module a worker thread of the
 * `local` provider loads when a task names it; the port (./index.ts) calls it through the provider.
 */
import { type Quiz, QUIZ_TYPES, QuizSchema, type QuizTypeName } from '../../domain/scraps/quizzes';
import { clip } from '../extractive/markdown';
import { localTaskEntry } from '../local-tasks';
import { AiProviderError } from '../types';
import { type CardAnalysis, type RefineResult, RefineResultSchema, type ScrapText, type SourceCard, type TilResult } from './answers';
import { analyzeScrapLocally } from './extractive/analysis';
import { generateQuizzesLocally } from './extractive/quizzes';
import { refineMarkdown } from './extractive/refine';
import { generateTilLocally } from './extractive/til';

function assertUsable(input: ScrapText): void {
  if (!input.content.trim()) throw new AiProviderError('BAD_REQUEST', 'scrap content is empty', false);
}

/** BAD_REQUEST (not retryable) unless there are cards with UUID ids and at least one quiz type. */
function assertQuizInput(input: { cards: readonly SourceCard[]; types: readonly QuizTypeName[] }): void {
  if (input.cards.length === 0) throw new AiProviderError('BAD_REQUEST', 'no source cards for the quizzes', false);
  if (!input.types.some((t) => QUIZ_TYPES.includes(t))) throw new AiProviderError('BAD_REQUEST', 'no quiz type requested', false);
  const bad = input.cards.find((c) => !QuizSchema.shape.sourceCardId.safeParse(c.cardId).success);
  if (bad) throw new AiProviderError('BAD_REQUEST', `card id is not a UUID: ${clip(bad.cardId, 60)}`, false);
}

/**
 * The tasks, synchronous (CPU only). BAD_REQUEST (not retryable) for empty content, a TIL without
 * cards, quizzes without cards or types or with a non-UUID card id.
 */
export const SCRAPS_LOCAL_TASKS = {
  analyzeCard: (input: ScrapText): CardAnalysis => {
    assertUsable(input);
    return analyzeScrapLocally(input);
  },
  refineScrap: (input: ScrapText): RefineResult => {
    assertUsable(input);
    return RefineResultSchema.parse({ refinedContent: refineMarkdown(input.content) });
  },
  generateTil: (input: { targetDate: string; cards: SourceCard[] }): TilResult => generateTilLocally(input),
  generateQuizzes: (input: { cards: SourceCard[]; types: QuizTypeName[] }): Quiz[] => {
    assertQuizInput(input);
    return generateQuizzesLocally(input);
  },
};

export default localTaskEntry(SCRAPS_LOCAL_TASKS);
