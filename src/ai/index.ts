/**
 * AI runtime entry point (SAN-7, SAN-8, SAN-9, SAN-11): picks the configured provider and re-exports
 * the boundary types. Activities and workers import from here, never from a provider module directly.
 */
import type { Config } from '../config';
import { createOpenAiRuntime } from './openai';
import { createThreadedLocalAiRuntime } from './threaded';
import { AiRuntimeError, type AiRuntime } from './types';

export * from './types';
export { createLocalAiRuntime, explainStudyQuestionLocally, extractMemoCardsLocally, generateQuizzesLocally, generateTilLocally, localEmbedding, refineMarkdown } from './local';
export { MEMO_CARDS_SCHEMA_NAME, QUIZ_SCHEMA_NAME, STUDY_EXPLANATION_SCHEMA_NAME, TIL_SCHEMA_NAME, createOpenAiRuntime, parseRetryAfterMs } from './openai';
export { createThreadedLocalAiRuntime, type LocalThreadOptions, type ThreadedLocalAiRuntime } from './threaded';

/**
 * Builds the runtime named by `cfg.provider`: `local` (offline, deterministic; its CPU work runs in
 * worker threads, {@link createThreadedLocalAiRuntime}, so the event loop stays free) or `openai`
 * (any OpenAI-compatible endpoint at `cfg.openai.baseUrl`).
 * @throws AiRuntimeError CONFIG for an unknown provider or an `openai` provider without an API key.
 */
export function createAiRuntime(cfg: Config['ai']): AiRuntime {
  switch (cfg.provider) {
    case 'local':
      return createThreadedLocalAiRuntime();
    case 'openai':
      return createOpenAiRuntime(cfg);
    default:
      throw new AiRuntimeError('CONFIG', `unknown AI provider: ${String(cfg.provider satisfies never)}`, false);
  }
}
