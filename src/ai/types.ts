/**
 * The AI provider boundary: what every provider offers the families' ports (src/ai/<family>),
 * whatever answers behind it. A provider either runs CPU-bound local tasks (`local`: the extractive
 * toolkit, off the event loop) or answers strict structured chat completions (`chat`: any
 * OpenAI-compatible endpoint), and always embeds texts. Failures are {@link AiProviderError}s only.
 * Workflow-safe types (no I/O here).
 */

/** Width of every embedding a provider answers (narrower models are zero-padded to it). */
export const EMBEDDING_DIMENSIONS = 1536;

/** Stable error codes of the AI boundary. */
export type AiErrorCode =
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'UPSTREAM_UNAVAILABLE'
  | 'MALFORMED_OUTPUT'
  | 'INVALID_EMBEDDING'
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'CONFIG';

/**
 * Classified failure of an AI call. `retryable` tells the activity layer whether Temporal should
 * retry; `retryAfterMs` carries the provider's Retry-After when it gave one.
 */
export class AiProviderError extends Error {
  override readonly name = 'AiProviderError';
  constructor(
    readonly code: AiErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * One call of a family's local operations as plain (structured-cloneable) data: the module that
 * handles it, by path (its default export is a `localTaskEntry`, src/ai/local-tasks.ts), the
 * operation's name and its input. The same task runs in a worker thread or in the calling thread.
 */
export interface LocalTask {
  module: string;
  op: string;
  input: unknown;
}

/** A strict structured-output request: the JSON schema's name and body, the instructions, the user message. */
export interface ChatRequest {
  schemaName: string;
  schema: object;
  instructions: string;
  message: string;
}

/** Structured chat completions of an OpenAI-compatible endpoint. */
export interface StructuredChat {
  /** The parsed JSON content of the answer; rejects with {@link AiProviderError} (MALFORMED_OUTPUT for a refusal, truncation or non-JSON content). */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<unknown>;
  /** An error of this provider, its message with the provider's secrets redacted. */
  error(code: AiErrorCode, retryable: boolean, message: string): AiProviderError;
}

interface AiProviderBase {
  /** Provider name as configured (`local`, `openai`). */
  readonly name: string;
  /** Identity of the model behind {@link embed}, stored with every vector. */
  readonly embeddingModel: string;
  /** 1536-d embeddings, one per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

/** A provider that answers by running the families' local tasks (deterministic, offline). */
export interface LocalAiProvider extends AiProviderBase {
  readonly kind: 'local';
  /** Runs `task`; its answer, or the task's {@link AiProviderError}. TIMEOUT (retryable) when `signal` aborts. */
  runLocal(task: LocalTask, signal?: AbortSignal): Promise<unknown>;
}

/** A provider that answers through structured chat completions. */
export interface ChatAiProvider extends AiProviderBase {
  readonly kind: 'chat';
  readonly chat: StructuredChat;
}

/** A provider of AI answers, as the families' ports build on it. */
export type AiProvider = LocalAiProvider | ChatAiProvider;
