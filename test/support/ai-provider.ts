/**
 * Test doubles of the AI provider: the in-process `local` provider with its local tasks and
 * embeddings passed through a hook first, so a test can delay or fail one operation of a family's
 * port (its task `op`: `analyzeCard`, `generateQuizzes`, `extractMemoCards` …, or `embed`) while
 * the others answer as the local provider does.
 */
import { createLocalAiProvider } from '../../src/ai/local';
import type { LocalAiProvider } from '../../src/ai/types';

/** One call as the hook sees it: the operation, its input, and the local provider's answer to it. */
export interface LocalCall {
  op: string;
  input: unknown;
  signal?: AbortSignal;
  /** The answer of the local provider. */
  answer(): Promise<unknown>;
}

/** The in-process local provider named `name` whose every task and `embed` goes through `hook`. */
export function localProviderWith(name: string, hook: (call: LocalCall) => Promise<unknown>): LocalAiProvider {
  const base = createLocalAiProvider();
  return {
    ...base,
    name,
    runLocal: (task, signal) => hook({ op: task.op, input: task.input, signal, answer: () => base.runLocal(task, signal) }),
    embed: (texts, signal) => hook({ op: 'embed', input: texts, signal, answer: () => base.embed(texts, signal) }) as Promise<number[][]>,
  };
}
