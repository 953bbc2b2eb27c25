/**
 * The scraps family's operations over a chat provider (SAN-7, SAN-8, SAN-9, SAN-11): one strict
 * structured completion each (prompts in ./chat-prompts.ts), the answer validated with zod and the
 * family's checks, embeddings from the provider's `embed`. A schema mismatch, an unrequested quiz
 * type, an OX answer other than `O`/`X` (after trimming and upper-casing), a SHORT_ANSWER whose
 * answer appears in its question (case-insensitive) or a `sourceCardId` that is not an input card
 * is MALFORMED_OUTPUT (retryable: a new sample may pass).
 */
import { z } from 'zod';
import { cutToLength } from '../../core/text';
import { type Quiz, QUIZ_TYPES, QuizSchema, type QuizTypeName } from '../../domain/scraps/quizzes';
import { excerpt, zodIssues } from '../openai-compatible/responses';
import type { ChatAiProvider } from '../types';
import { type CardAnalysis, CardAnalysisSchema, type RefineResult, RefineResultSchema, type ScrapText, type SourceCard, type TilResult, TilResultSchema } from './answers';
import { ANALYSIS_INSTRUCTIONS, ANALYSIS_JSON_SCHEMA, ANALYSIS_SCHEMA_NAME, cardsMessage, QUIZ_INSTRUCTIONS, QUIZ_SCHEMA_NAME, quizJsonSchema, REFINE_INSTRUCTIONS, REFINE_JSON_SCHEMA, REFINE_SCHEMA_NAME, scrapMessage, TIL_INSTRUCTIONS, TIL_JSON_SCHEMA, TIL_SCHEMA_NAME } from './chat-prompts';

const AnalysisAnswerSchema = CardAnalysisSchema.omit({ embedding: true, embeddingModel: true });
const TilAnswerSchema = TilResultSchema.omit({ embedding: true, embeddingModel: true });
const QuizAnswerSchema = z.object({ quizzes: z.array(QuizSchema) });

/** Cards with a non-blank content or summary; the others give nothing to write about. */
export function usableCards(cards: readonly SourceCard[]): SourceCard[] {
  return cards.filter((c) => c.content.trim() || c.summary.trim());
}

/** Upper-cases and trims OX answers (`o` → `O`) before validation; other answers are left alone. */
export function normaliseOxAnswers(answer: unknown): unknown {
  const quizzes = (answer as { quizzes?: unknown } | null)?.quizzes;
  if (!Array.isArray(quizzes)) return answer;
  return {
    ...(answer as object),
    quizzes: quizzes.map((q: unknown) => {
      const quiz = q as { type?: unknown; answer?: unknown } | null;
      return quiz?.type === 'OX' && typeof quiz.answer === 'string' ? { ...quiz, answer: quiz.answer.trim().toUpperCase() } : q;
    }),
  };
}

/**
 * SAN-11 server-side checks of validated quizzes; the first violation as text, or undefined: at least
 * one quiz; only requested types; OX answers `O` or `X`; a SHORT_ANSWER's answer absent from its
 * question (case-insensitive); every `sourceCardId` one of `cardIds`.
 */
export function quizProblem(quizzes: readonly Quiz[], types: readonly QuizTypeName[], cardIds: ReadonlySet<string>): string | undefined {
  if (quizzes.length === 0) return 'no quizzes';
  for (const [i, q] of quizzes.entries()) {
    if (!types.includes(q.type)) return `quizzes.${i}: type ${q.type} was not requested`;
    if (!cardIds.has(q.sourceCardId)) return `quizzes.${i}: sourceCardId ${q.sourceCardId} is not an input card`;
    if (q.type === 'OX' && q.answer !== 'O' && q.answer !== 'X') return `quizzes.${i}: OX answer must be O or X, got ${excerpt(q.answer)}`;
    if (q.type === 'SHORT_ANSWER' && q.question.toLowerCase().includes(q.answer.toLowerCase())) {
      return `quizzes.${i}: the answer appears in the question`;
    }
  }
  return undefined;
}

/** NFC-normalises, trims, lower-cases and de-duplicates model tags and keeps at most 10, before validation. */
export function normaliseTags(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || !Array.isArray((answer as { tags?: unknown }).tags)) return answer;
  const tags = (answer as { tags: unknown[] }).tags;
  if (!tags.every((t) => typeof t === 'string')) return answer;
  const unique = [...new Set((tags as string[]).map((t) => t.normalize('NFC').trim().toLowerCase()).filter(Boolean))].slice(0, 10);
  return { ...answer, tags: unique };
}

/**
 * The scraps operations over `provider`. `analyzeCard` embeds `input.content`, `generateTil` its
 * `tilMarkdown` (schema `til_generation`); both answers carry the provider's `embeddingModel`.
 * `generateQuizzes` uses schema `recall_quizzes` with `type` and `sourceCardId` constrained to the
 * request. TIL and quizzes send the cards as a JSON block between `<cards>` tags and reject as
 * BAD_REQUEST (not retryable) when no card has content or a summary; quizzes also when no known
 * type is requested or a card id is not a UUID; analysis and refinement for empty content.
 */
export function chatScrapsOperations(provider: ChatAiProvider) {
  const { chat } = provider;
  const mismatch = (schemaName: string, why: string) => chat.error('MALFORMED_OUTPUT', true, `/chat/completions (${schemaName}): schema mismatch: ${why}`);
  const oneVector = async (text: string, signal?: AbortSignal) => (await provider.embed([text], signal))[0];

  return {
    async analyzeCard(input: ScrapText, signal?: AbortSignal): Promise<CardAnalysis> {
      if (!input.content.trim()) throw chat.error('BAD_REQUEST', false, 'scrap content is empty');
      const request = { schemaName: ANALYSIS_SCHEMA_NAME, schema: ANALYSIS_JSON_SCHEMA, instructions: ANALYSIS_INSTRUCTIONS, message: scrapMessage(input) };
      const fields = AnalysisAnswerSchema.safeParse(normaliseTags(await chat.complete(request, signal)));
      if (!fields.success) throw mismatch(ANALYSIS_SCHEMA_NAME, zodIssues(fields.error));
      const embedding = await oneVector(input.content, signal);
      return { ...CardAnalysisSchema.parse({ ...fields.data, embedding }), embeddingModel: provider.embeddingModel };
    },

    async refineScrap(input: ScrapText, signal?: AbortSignal): Promise<RefineResult> {
      if (!input.content.trim()) throw chat.error('BAD_REQUEST', false, 'scrap content is empty');
      const request = { schemaName: REFINE_SCHEMA_NAME, schema: REFINE_JSON_SCHEMA, instructions: REFINE_INSTRUCTIONS, message: scrapMessage(input) };
      const result = RefineResultSchema.safeParse(await chat.complete(request, signal));
      if (!result.success || !result.data.refinedContent.trim()) {
        throw mismatch(REFINE_SCHEMA_NAME, result.success ? 'refinedContent is blank' : zodIssues(result.error));
      }
      return { refinedContent: result.data.refinedContent.trim() };
    },

    async generateTil(input: { targetDate: string; cards: SourceCard[] }, signal?: AbortSignal): Promise<TilResult> {
      const cards = usableCards(input.cards);
      if (cards.length === 0) throw chat.error('BAD_REQUEST', false, 'no source card with content for the TIL');
      const message = cardsMessage([`Target date: ${input.targetDate}`], cards);
      const request = { schemaName: TIL_SCHEMA_NAME, schema: TIL_JSON_SCHEMA, instructions: TIL_INSTRUCTIONS, message };
      const fields = TilAnswerSchema.safeParse(await chat.complete(request, signal));
      if (!fields.success) throw mismatch(TIL_SCHEMA_NAME, zodIssues(fields.error));
      const embedding = await oneVector(fields.data.tilMarkdown, signal);
      return { ...TilResultSchema.parse({ ...fields.data, embedding }), embeddingModel: provider.embeddingModel };
    },

    async generateQuizzes(input: { cards: SourceCard[]; types: QuizTypeName[] }, signal?: AbortSignal): Promise<Quiz[]> {
      const cards = usableCards(input.cards);
      const types = QUIZ_TYPES.filter((t) => input.types.includes(t));
      if (cards.length === 0) throw chat.error('BAD_REQUEST', false, 'no source card with content for the quizzes');
      if (types.length === 0) throw chat.error('BAD_REQUEST', false, 'no quiz type requested');
      const badId = cards.find((c) => !QuizSchema.shape.sourceCardId.safeParse(c.cardId).success);
      if (badId) throw chat.error('BAD_REQUEST', false, `card id is not a UUID: ${cutToLength(excerpt(badId.cardId), 60)}`);
      const cardIds = cards.map((c) => c.cardId);
      const message = cardsMessage([`Quiz types: ${types.join(', ')}`], cards);
      const request = { schemaName: QUIZ_SCHEMA_NAME, schema: quizJsonSchema(types, cardIds), instructions: QUIZ_INSTRUCTIONS, message };
      const parsed = QuizAnswerSchema.safeParse(normaliseOxAnswers(await chat.complete(request, signal)));
      if (!parsed.success) throw mismatch(QUIZ_SCHEMA_NAME, zodIssues(parsed.error));
      const problem = quizProblem(parsed.data.quizzes, types, new Set(cardIds));
      if (problem) throw chat.error('MALFORMED_OUTPUT', true, `/chat/completions (${QUIZ_SCHEMA_NAME}): ${problem}`);
      return parsed.data.quizzes;
    },
  };
}
