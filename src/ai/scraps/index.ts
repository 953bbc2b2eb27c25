/**
 * The scraps family's port to the AI provider (SAN-7 … SAN-12), {@link ScrapsAi}: card analysis,
 * refinement, the TIL of a day, recall quizzes and embeddings, over any {@link AiProvider}. With a
 * local provider the work runs as the family's local tasks (./local-tasks.ts, off the event loop
 * with the threaded provider); with a chat provider as structured completions (./chat.ts). Every
 * method rejects with AiProviderError only; answers are validated with zod before they are returned.
 */
import type { Quiz, QuizTypeName } from '../../domain/scraps/quizzes';
import { LOCAL_EMBEDDING_MODEL } from '../embedding-models';
import { localOperations } from '../local-tasks';
import type { AiProvider } from '../types';
import type { CardAnalysis, RefineResult, ScrapText, SourceCard, TilResult } from './answers';
import { chatScrapsOperations } from './chat';
import type { SCRAPS_LOCAL_TASKS } from './local-tasks';

/** What the scraps family asks of the AI. */
export interface ScrapsAi {
  /** Identity of the model behind `embed` and the answers' embeddings, stored with every vector. */
  readonly embeddingModel: string;
  /** SAN-7: title, summary, tags, category and a 1536-d embedding of a scrap. BAD_REQUEST for empty content. */
  analyzeCard(input: ScrapText, signal?: AbortSignal): Promise<CardAnalysis>;
  /** SAN-8: cleaned-up content of a scrap (markdown and whitespace normalised). BAD_REQUEST for empty content. */
  refineScrap(input: ScrapText, signal?: AbortSignal): Promise<RefineResult>;
  /** SAN-9: title, markdown and 1536-d embedding of the TIL of `targetDate` (YYYY-MM-DD) from its cards. */
  generateTil(input: { targetDate: string; cards: SourceCard[] }, signal?: AbortSignal): Promise<TilResult>;
  /**
   * SAN-11: quizzes of the requested types from the cards. OX answers are `O` or `X`; a
   * SHORT_ANSWER's answer never appears in its question. Every quiz cites one input card.
   */
  generateQuizzes(input: { cards: SourceCard[]; types: QuizTypeName[] }, signal?: AbortSignal): Promise<Quiz[]>;
  /** SAN-12 and similarity: 1536-d embeddings, one per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

const task = localOperations<typeof SCRAPS_LOCAL_TASKS>(require.resolve('./local-tasks'));

/**
 * The scraps port over `provider`. A local task answers with the local model's vectors; when the
 * provider's embeddings come from another model (`EMBEDDINGS_PROVIDER=openai`), the analysis
 * embeds the content and the TIL its markdown with the provider's `embed` instead, and both carry
 * its `embeddingModel`.
 */
export function createScrapsAi(provider: AiProvider): ScrapsAi {
  const embed = (texts: string[], signal?: AbortSignal) => provider.embed(texts, signal);
  if (provider.kind === 'chat') return { embeddingModel: provider.embeddingModel, embed, ...chatScrapsOperations(provider) };

  const localVectors = provider.embeddingModel === LOCAL_EMBEDDING_MODEL;
  const oneVector = async (text: string, signal?: AbortSignal) => (await provider.embed([text], signal))[0] as number[];
  return {
    embeddingModel: provider.embeddingModel,
    embed,
    async analyzeCard(input, signal) {
      if (localVectors) return task(provider, 'analyzeCard', input, signal);
      const [analysis, embedding] = await Promise.all([task(provider, 'analyzeCard', input, signal), oneVector(input.content, signal)]);
      return { ...analysis, embedding, embeddingModel: provider.embeddingModel };
    },
    refineScrap: (input, signal) => task(provider, 'refineScrap', input, signal),
    async generateTil(input, signal) {
      const til = await task(provider, 'generateTil', input, signal);
      if (localVectors) return til;
      return { ...til, embedding: await oneVector(til.tilMarkdown, signal), embeddingModel: provider.embeddingModel };
    },
    generateQuizzes: (input, signal) => task(provider, 'generateQuizzes', input, signal),
  };
}
