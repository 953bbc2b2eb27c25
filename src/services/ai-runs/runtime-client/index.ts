/**
 * Entry point of the AI runtime client of the AI runs family (AR-2, AR-8): builds the configured
 * client and re-exports the boundary. Activities import from here, never from an adapter module.
 */
import { createHttpAiRuntimeClient, type HttpRuntimeOptions } from './http';
import { createLocalAiRuntimeClient, type LocalRuntimeOptions } from './local';
import type { AiRuntimeClient } from './client';

export * from './client';
export { analyzeLocally, createLocalAiRuntimeClient, localVersions, textContains, type LocalAnswer, type LocalRuntimeOptions } from './local';
export { createHttpAiRuntimeClient, DEFAULT_ANALYZE_PATH, type HttpRuntimeOptions } from './http';

/** What {@link createAiRuntimeClient} builds: the offline `local` runtime (default) or the `http` adapter. */
export type AiRuntimeClientConfig = ({ kind: 'local' } & LocalRuntimeOptions) | ({ kind: 'http' } & HttpRuntimeOptions);

/**
 * The runtime client for `config` (AR-2): `local` (deterministic, offline) or `http` (the external
 * runtime at `baseUrl`). Neither retries (AR-8).
 * @throws TypeError for `http` without a valid absolute `baseUrl`.
 */
export function createAiRuntimeClient(config: AiRuntimeClientConfig): AiRuntimeClient {
  switch (config.kind) {
    case 'local':
      return createLocalAiRuntimeClient(config);
    case 'http':
      return createHttpAiRuntimeClient(config);
    default:
      throw new TypeError(`unknown AI runtime kind: ${String((config as { kind: unknown }).kind)}`);
  }
}
