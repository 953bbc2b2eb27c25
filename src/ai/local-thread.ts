/**
 * The module every worker thread of the `local` provider loads first (src/ai/threaded.ts) and the
 * task module of the provider's own operation, `embed` (1536-d feature-hashed embeddings). The
 * families' task modules are loaded by the threads when a task names them.
 */
import { localEmbedding } from './extractive/embedding';
import { localTaskEntry } from './local-tasks';

/** The provider's own local tasks. */
export const PROVIDER_TASKS = {
  embed: (texts: string[]): number[][] => texts.map(localEmbedding),
};

export default localTaskEntry(PROVIDER_TASKS);
