/**
 * Offline, deterministic AI runtime (provider `local`, SAN-7, SAN-8, SAN-9, SAN-11): extractive title
 * and summary, keyword tags, lexicon-scored category, rule-based markdown clean-up, extractive TILs,
 * OX and cloze quizzes built from the cards' own sentences, and a feature-hashed TF-IDF embedding. No model weights, no network, no randomness: the same input always gives the same answer.
 *
 * The parts live in src/ai/extractive/ (tokens, embedding, markdown, card, refine, quiz-terms,
 * negation, quizzes, til); this module is the runtime over them and re-exports their public API.
 */
import { LOCAL_EMBEDDING_MODEL } from './embedding-models';
import { type AiRuntime, AiRuntimeError, type CardAnalysis, CardAnalysisSchema, type Quiz, QUIZ_TYPES, QuizSchema, type QuizTypeName, type RefineResult, RefineResultSchema, type ScrapText, type SourceCard, type TilResult } from './types';
import { classify, extractSummary, extractTags, extractTitle, termWeights } from './extractive/card';
import { localEmbedding } from './extractive/embedding';
import { clip, sentences, structure } from './extractive/markdown';
import { generateQuizzesLocally } from './extractive/quizzes';
import { refineMarkdown } from './extractive/refine';
import { generateTilLocally } from './extractive/til';
import { contentTokens, isContent, words } from './extractive/tokens';
import { explainStudyQuestionLocally, extractMemoCardsLocally } from './extractive/memo-cards';
import type { MemoCardBatch, MemoCardExtractionInput } from '../domain/study/cards';
import type { StudyExplanation, StudyExplanationInput } from '../domain/study/explanation';

export { localEmbedding } from './extractive/embedding';
export { negateEnglish, negateKorean } from './extractive/negation';
export { TIL_LIMITS } from './extractive/quiz-terms';
export { generateQuizzesLocally } from './extractive/quizzes';
export { refineMarkdown } from './extractive/refine';
export { generateTilLocally } from './extractive/til';
export { explainStudyQuestionLocally, extractMemoCardsLocally } from './extractive/memo-cards';

// ---------------------------------------------------------------------------------------------
// The runtime
// ---------------------------------------------------------------------------------------------

/** The answer's fields except the embedding, which {@link localEmbedding} builds valid by construction. */
const AnalysisFieldsSchema = CardAnalysisSchema.omit({ embedding: true });

/** TIMEOUT (retryable) when the caller's signal is already aborted. */
export function assertNotAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AiRuntimeError('TIMEOUT', 'local AI call aborted by the caller', true);
}

function assertUsable(input: ScrapText): void {
  if (!input.content.trim()) throw new AiRuntimeError('BAD_REQUEST', 'scrap content is empty', false);
}

/** BAD_REQUEST (not retryable) unless there are cards with UUID ids and at least one quiz type. */
function assertQuizInput(input: { cards: readonly SourceCard[]; types: readonly QuizTypeName[] }): void {
  if (input.cards.length === 0) throw new AiRuntimeError('BAD_REQUEST', 'no source cards for the quizzes', false);
  if (!input.types.some((t) => QUIZ_TYPES.includes(t))) throw new AiRuntimeError('BAD_REQUEST', 'no quiz type requested', false);
  const bad = input.cards.find((c) => !QuizSchema.shape.sourceCardId.safeParse(c.cardId).success);
  if (bad) throw new AiRuntimeError('BAD_REQUEST', `card id is not a UUID: ${clip(bad.cardId, 60)}`, false);
}

/** Pure SAN-7 analysis used by {@link createLocalAiRuntime}; exported for tools such as the test emulator. Input is read as NFC. */
export function analyzeLocally(raw: ScrapText): CardAnalysis {
  const input = { ...raw, content: raw.content.normalize('NFC'), title: raw.title == null ? raw.title : raw.title.normalize('NFC') };
  const s = structure(input.content);
  const sents = sentences(s.blocks);
  const allWords = words([...s.headings, ...s.blocks].join('\n'));
  const tokens = allWords.filter(isContent);
  const title = extractTitle(input, s, sents);
  const summary = extractSummary(sents, termWeights(tokens), title);
  const tags = extractTags(tokens, new Set(contentTokens(title)));
  const category = classify(allWords);
  const fields = AnalysisFieldsSchema.parse({ title, summary, tags, category });
  return { ...fields, embedding: localEmbedding(input.content) };
}

/**
 * One call of the local runtime as plain data (structured-cloneable), so that it can run in this
 * thread or in a worker thread with the same code: {@link runLocalTask}.
 */
export type LocalTask =
  | { op: 'analyzeCard'; input: ScrapText }
  | { op: 'refineScrap'; input: ScrapText }
  | { op: 'generateTil'; input: { targetDate: string; cards: SourceCard[] } }
  | { op: 'generateQuizzes'; input: { cards: SourceCard[]; types: QuizTypeName[] } }
  | { op: 'embed'; input: string[] }
  | { op: 'explainStudyQuestion'; input: StudyExplanationInput }
  | { op: 'extractMemoCards'; input: MemoCardExtractionInput };

/** What each {@link LocalTask} answers. */
export interface LocalTaskResults {
  analyzeCard: CardAnalysis;
  refineScrap: RefineResult;
  generateTil: TilResult;
  generateQuizzes: Quiz[];
  embed: number[][];
  explainStudyQuestion: StudyExplanation;
  extractMemoCards: MemoCardBatch;
}

/**
 * Runs one task synchronously (CPU only, no I/O). Rejects as the runtime does: BAD_REQUEST (not
 * retryable) for empty content, a TIL without cards, quizzes without cards or types or with a
 * non-UUID card id; any other failure (e.g. its own answer failing validation, which would fail
 * the same way on every attempt) becomes MALFORMED_OUTPUT, not retryable.
 * @throws AiRuntimeError only.
 */
export function runLocalTask(task: LocalTask): LocalTaskResults[LocalTask['op']] {
  try {
    switch (task.op) {
      case 'analyzeCard':
        assertUsable(task.input);
        return analyzeLocally(task.input);
      case 'refineScrap':
        assertUsable(task.input);
        return RefineResultSchema.parse({ refinedContent: refineMarkdown(task.input.content) });
      case 'generateTil':
        return generateTilLocally(task.input);
      case 'generateQuizzes':
        assertQuizInput(task.input);
        return generateQuizzesLocally(task.input);
      case 'embed':
        return task.input.map(localEmbedding);
      case 'explainStudyQuestion':
        if (!task.input.question.trim()) throw new AiRuntimeError('BAD_REQUEST', 'study question is empty', false);
        return explainStudyQuestionLocally(task.input);
      case 'extractMemoCards':
        if (!task.input.explanation.trim()) throw new AiRuntimeError('BAD_REQUEST', 'explanation is empty', false);
        return extractMemoCardsLocally(task.input);
      default: {
        const unknown: never = task;
        throw new AiRuntimeError('BAD_REQUEST', `unknown local AI task: ${JSON.stringify((unknown as { op?: unknown }).op)}`, false);
      }
    }
  } catch (err) {
    if (err instanceof AiRuntimeError) throw err;
    throw new AiRuntimeError('MALFORMED_OUTPUT', `local ${task.op} failed: ${err instanceof Error ? err.message : String(err)}`, false, undefined, { cause: err });
  }
}

/**
 * Creates the offline `local` provider running in the calling thread (SAN-7, SAN-8, SAN-9, SAN-11).
 * Deterministic; embeddings are {@link localEmbedding} (1536-d, unit length); TILs are
 * {@link generateTilLocally}, quizzes {@link generateQuizzesLocally}. Each call's CPU work blocks
 * the event loop while it runs: services use the worker-thread runtime (`createThreadedLocalAiRuntime`
 * in `./threaded`), which answers the same. Methods reject with {@link AiRuntimeError} as
 * {@link runLocalTask} does, and TIMEOUT when the signal is already aborted.
 */
export function createLocalAiRuntime(): AiRuntime {
  const run = async <K extends LocalTask['op']>(task: Extract<LocalTask, { op: K }>, signal?: AbortSignal): Promise<LocalTaskResults[K]> => {
    assertNotAborted(signal);
    return runLocalTask(task) as LocalTaskResults[K];
  };
  return {
    provider: 'local',
    embeddingModel: LOCAL_EMBEDDING_MODEL,
    analyzeCard: (input, signal) => run({ op: 'analyzeCard', input }, signal),
    refineScrap: (input, signal) => run({ op: 'refineScrap', input }, signal),
    generateTil: (input, signal) => run({ op: 'generateTil', input }, signal),
    generateQuizzes: (input, signal) => run({ op: 'generateQuizzes', input }, signal),
    embed: (texts, signal) => run({ op: 'embed', input: texts }, signal),
    explainStudyQuestion: (input, signal) => run({ op: 'explainStudyQuestion', input }, signal),
    extractMemoCards: (input, signal) => run({ op: 'extractMemoCards', input }, signal),
  };
}
