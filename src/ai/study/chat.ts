/**
 * The study family's operations over a chat provider (ST-5): one strict structured completion each
 * (prompts and answer checks in ./chat-prompts.ts). A schema mismatch is MALFORMED_OUTPUT
 * (retryable, the `parse_fail` class); a blank question or explanation is BAD_REQUEST (not retryable).
 */
import { cardLimit, type MemoCardBatch, type MemoCardExtractionInput } from '../../domain/study/cards';
import type { StudyExplanation, StudyExplanationInput } from '../../domain/study/explanation';
import type { ChatAiProvider } from '../types';
import {
  explanationMessage, MEMO_CARD_INSTRUCTIONS, MEMO_CARDS_SCHEMA_NAME, memoCardsJsonSchema, memoCardsMessage, parseExplanationAnswer,
  parseMemoCardAnswer, STUDY_EXPLANATION_INSTRUCTIONS, STUDY_EXPLANATION_JSON_SCHEMA, STUDY_EXPLANATION_SCHEMA_NAME,
} from './chat-prompts';

/** The study operations over `provider`: at most `cardLimit(input)` cards, evidence refs limited to the request's passages. */
export function chatStudyOperations(provider: ChatAiProvider) {
  const { chat } = provider;
  const mismatch = (schemaName: string, why: string) => chat.error('MALFORMED_OUTPUT', true, `/chat/completions (${schemaName}): schema mismatch: ${why}`);
  return {
    async explainStudyQuestion(input: StudyExplanationInput, signal?: AbortSignal): Promise<StudyExplanation> {
      if (!input.question.trim()) throw chat.error('BAD_REQUEST', false, 'study question is empty');
      const request = { schemaName: STUDY_EXPLANATION_SCHEMA_NAME, schema: STUDY_EXPLANATION_JSON_SCHEMA, instructions: STUDY_EXPLANATION_INSTRUCTIONS, message: explanationMessage(input) };
      const parsed = parseExplanationAnswer(await chat.complete(request, signal));
      if ('problem' in parsed) throw mismatch(STUDY_EXPLANATION_SCHEMA_NAME, parsed.problem);
      return parsed.ok;
    },

    async extractMemoCards(input: MemoCardExtractionInput, signal?: AbortSignal): Promise<MemoCardBatch> {
      if (!input.explanation.trim()) throw chat.error('BAD_REQUEST', false, 'explanation is empty');
      const limit = cardLimit(input);
      const { message, refs } = memoCardsMessage(input);
      const request = { schemaName: MEMO_CARDS_SCHEMA_NAME, schema: memoCardsJsonSchema(refs, limit), instructions: MEMO_CARD_INSTRUCTIONS, message };
      const parsed = parseMemoCardAnswer(await chat.complete(request, signal), limit);
      if ('problem' in parsed) throw mismatch(MEMO_CARDS_SCHEMA_NAME, parsed.problem);
      return parsed.ok;
    },
  };
}
