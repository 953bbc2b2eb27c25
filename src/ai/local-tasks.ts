/**
 * Local tasks: how a family's CPU-bound local operations run with the same code in a worker
 * thread (src/ai/threaded.ts) or in the calling thread (src/ai/local.ts). A family's task module
 * (src/ai/<family>/local-tasks.ts) default-exports {@link localTaskEntry} of its handlers; its
 * port calls them through {@link localOperations}. The thread pool loads the module a task names,
 * so no module has to know every family.
 */
import { AiProviderError, type AiErrorCode, type LocalAiProvider, type LocalTask } from './types';

/** One module's operations: name → synchronous handler (CPU only, no I/O) that throws AiProviderError for a bad input. */
export type LocalTaskHandlers = Readonly<Record<string, (input: never) => unknown>>;

/** A task's outcome as structured-cloneable data (an error object crossing threads keeps only name and message). */
export type LocalReply =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: AiErrorCode; message: string; retryable: boolean; retryAfterMs?: number } };

/** What a task module default-exports: runs one of its tasks, its failure as data. */
export type LocalTaskEntry = (task: LocalTask) => LocalReply;

/**
 * The entry of a task module over `handlers`: BAD_REQUEST (not retryable) for an unknown
 * operation; a handler's AiProviderError as it is; any other failure (e.g. its own answer failing
 * validation, which would fail the same way on every attempt) becomes MALFORMED_OUTPUT, not retryable.
 */
export function localTaskEntry(handlers: LocalTaskHandlers): LocalTaskEntry {
  return (task) => {
    try {
      return { ok: true, value: runHandler(handlers, task) };
    } catch (err) {
      const e = err instanceof AiProviderError ? err : new AiProviderError('MALFORMED_OUTPUT', String(err), false);
      return { ok: false, error: { code: e.code, message: e.message, retryable: e.retryable, retryAfterMs: e.retryAfterMs } };
    }
  };
}

function runHandler(handlers: LocalTaskHandlers, task: LocalTask): unknown {
  try {
    const handler = Object.hasOwn(handlers, task.op) ? handlers[task.op] : undefined;
    if (!handler) throw new AiProviderError('BAD_REQUEST', `unknown local AI task: ${JSON.stringify(task.op)}`, false);
    return handler(task.input as never);
  } catch (err) {
    if (err instanceof AiProviderError) throw err;
    throw new AiProviderError('MALFORMED_OUTPUT', `local ${task.op} failed: ${err instanceof Error ? err.message : String(err)}`, false, undefined, { cause: err });
  }
}

/** The answer of `reply`, or its error thrown as the AiProviderError it was. */
export function replyValue(reply: LocalReply): unknown {
  if (reply.ok) return reply.value;
  const { code, message, retryable, retryAfterMs } = reply.error;
  throw new AiProviderError(code, message, retryable, retryAfterMs);
}

/** TIMEOUT (retryable) when the caller's signal is already aborted. */
export function assertNotAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AiProviderError('TIMEOUT', 'local AI call aborted by the caller', true);
}

/**
 * Typed calls of the tasks of `module` (an absolute path, e.g. `require.resolve('./local-tasks')`)
 * whose handlers have the type `H`: `run(provider, op, input, signal)` answers what the handler returns.
 */
export function localOperations<H extends LocalTaskHandlers>(module: string) {
  return <K extends keyof H & string>(provider: LocalAiProvider, op: K, input: Parameters<H[K]>[0], signal?: AbortSignal) =>
    provider.runLocal({ module, op, input }, signal) as Promise<ReturnType<H[K]>>;
}
