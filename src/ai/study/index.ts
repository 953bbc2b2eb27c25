/**
 * The study family's port to the AI provider (ST-5), {@link StudyAi}: explanations of study
 * questions, memo cards and embeddings, over any {@link AiProvider}. With a local provider the work
 * runs as the family's local tasks (./local-tasks.ts, off the event loop with the threaded
 * provider); with a chat provider as structured completions (./chat.ts). Every method rejects with
 * AiProviderError only.
 */
import type { MemoCardBatch, MemoCardExtractionInput } from '../../domain/study/cards';
import type { StudyExplanation, StudyExplanationInput } from '../../domain/study/explanation';
import { localOperations } from '../local-tasks';
import type { AiProvider } from '../types';
import { chatStudyOperations } from './chat';
import type { STUDY_LOCAL_TASKS } from './local-tasks';

/** What the study family asks of the AI. */
export interface StudyAi {
  /** Identity of the model behind `embed`, stored with every vector. */
  readonly embeddingModel: string;
  /**
   * A markdown explanation of a study question from the question, the user's answer and the given
   * context ({@link StudyExplanationInput}); validated with `StudyExplanationSchema`. BAD_REQUEST
   * (not retryable) for a blank question.
   */
  explainStudyQuestion(input: StudyExplanationInput, signal?: AbortSignal): Promise<StudyExplanation>;
  /**
   * ST-5: memo cards (basic cue → answer, cloze) from a question's explanation and context, each
   * with evidence quotes copied from the named passages; validated with `MemoCardBatchSchema` (an
   * invalid answer is MALFORMED_OUTPUT, the `parse_fail` class). At most `cardLimit(input)` cards;
   * none is a valid answer. The card guards (src/domain/study/guards.ts) run after this.
   * BAD_REQUEST (not retryable) for a blank explanation.
   */
  extractMemoCards(input: MemoCardExtractionInput, signal?: AbortSignal): Promise<MemoCardBatch>;
  /** 1536-d embeddings (retrieval of related material), one per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

const task = localOperations<typeof STUDY_LOCAL_TASKS>(require.resolve('./local-tasks'));

/** The study port over `provider`. */
export function createStudyAi(provider: AiProvider): StudyAi {
  const embed = (texts: string[], signal?: AbortSignal) => provider.embed(texts, signal);
  if (provider.kind === 'chat') return { embeddingModel: provider.embeddingModel, embed, ...chatStudyOperations(provider) };
  return {
    embeddingModel: provider.embeddingModel,
    embed,
    explainStudyQuestion: (input, signal) => task(provider, 'explainStudyQuestion', input, signal),
    extractMemoCards: (input, signal) => task(provider, 'extractMemoCards', input, signal),
  };
}
