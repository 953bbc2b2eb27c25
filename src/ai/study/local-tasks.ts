/**
 * The study family's local tasks (ST-5): the explanation of a study question and its memo cards,
 * extractive and deterministic. The module a worker thread of the `local` provider loads when a
 * task names it; the port (./index.ts) calls it through the provider.
 */
import type { MemoCardBatch, MemoCardExtractionInput } from '../../domain/study/cards';
import type { StudyExplanation, StudyExplanationInput } from '../../domain/study/explanation';
import { localTaskEntry } from '../local-tasks';
import { AiProviderError } from '../types';
import { explainStudyQuestionLocally } from './extractive/explanation';
import { extractMemoCardsLocally } from './extractive/memo-cards';

/** The tasks, synchronous (CPU only). BAD_REQUEST (not retryable) for a blank question or explanation. */
export const STUDY_LOCAL_TASKS = {
  explainStudyQuestion: (input: StudyExplanationInput): StudyExplanation => {
    if (!input.question.trim()) throw new AiProviderError('BAD_REQUEST', 'study question is empty', false);
    return explainStudyQuestionLocally(input);
  },
  extractMemoCards: (input: MemoCardExtractionInput): MemoCardBatch => {
    if (!input.explanation.trim()) throw new AiProviderError('BAD_REQUEST', 'explanation is empty', false);
    return extractMemoCardsLocally(input);
  },
};

export default localTaskEntry(STUDY_LOCAL_TASKS);
