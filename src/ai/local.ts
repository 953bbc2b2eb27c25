/**
 * The offline, deterministic `local` provider in the calling thread: it runs the families' local
 * tasks (the extractive toolkit of src/ai/extractive and each family's operations over it) and
 * embeds with the feature-hashed TF-IDF embedding. No model weights, no network, no randomness:
 * the same input always gives the same answer. Each call's CPU work blocks the event loop while it
 * runs; services use the worker-thread provider (src/ai/threaded.ts), which answers the same.
 */
import { LOCAL_EMBEDDING_MODEL } from './embedding-models';
import { assertNotAborted, localOperations, replyValue, type LocalTaskEntry } from './local-tasks';
import type { PROVIDER_TASKS } from './local-thread';
import { AiProviderError, type LocalAiProvider, type LocalTask } from './types';

/** The module of the provider's own tasks, which every worker thread loads first. */
export const PROVIDER_TASK_MODULE = require.resolve('./local-thread');

const providerTask = localOperations<typeof PROVIDER_TASKS>(PROVIDER_TASK_MODULE);

/**
 * The local provider over `runLocal`: name `local`, embeddings of the local model
 * (`local:hash-tfidf-1536@1`) computed as one task.
 */
export function localProviderOver(runLocal: LocalAiProvider['runLocal']): LocalAiProvider {
  const provider: LocalAiProvider = {
    kind: 'local',
    name: 'local',
    embeddingModel: LOCAL_EMBEDDING_MODEL,
    runLocal,
    embed: (texts, signal) => providerTask(provider, 'embed', texts, signal),
  };
  return provider;
}

/** The task entry of `module`; UPSTREAM_UNAVAILABLE (retryable) when it cannot be loaded. */
function entryOf(module: string): LocalTaskEntry {
  let loaded: { default?: unknown };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a task names its module by path at run time
    loaded = require(module) as { default?: unknown };
  } catch (err) {
    throw new AiProviderError('UPSTREAM_UNAVAILABLE', `local AI task module failed to load: ${err instanceof Error ? err.message : String(err)}`, true, undefined, { cause: err });
  }
  if (typeof loaded.default !== 'function') throw new AiProviderError('UPSTREAM_UNAVAILABLE', `no local task entry in ${module}`, true);
  return loaded.default as LocalTaskEntry;
}

/**
 * Creates the `local` provider running its tasks in the calling thread. Tasks reject as their
 * handlers do ({@link localTaskEntry}), and with TIMEOUT (retryable) when the signal is already aborted.
 */
export function createLocalAiProvider(): LocalAiProvider {
  return localProviderOver(async (task: LocalTask, signal?: AbortSignal) => {
    assertNotAborted(signal);
    return replyValue(entryOf(task.module)(task));
  });
}
