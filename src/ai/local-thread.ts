/**
 * Worker-thread entry of the threaded `local` runtime (`./threaded`, SAN-7, SAN-8, SAN-9, SAN-11):
 * piscina calls the default export with one {@link LocalTask} and posts back its {@link LocalReply}.
 * Failures travel as data, because an error object crossing threads keeps only name and message.
 */
import { AiRuntimeError, type AiErrorCode } from './types';
import { runLocalTask, type LocalTask } from './local';

/** A task's outcome as structured-cloneable data. */
export type LocalReply =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: AiErrorCode; message: string; retryable: boolean; retryAfterMs?: number } };

/** Runs `task` with {@link runLocalTask}; its AiRuntimeError becomes `{ ok: false, error }`. */
export default function runInThread(task: LocalTask): LocalReply {
  try {
    return { ok: true, value: runLocalTask(task) };
  } catch (err) {
    const e = err instanceof AiRuntimeError ? err : new AiRuntimeError('MALFORMED_OUTPUT', String(err), false);
    return { ok: false, error: { code: e.code, message: e.message, retryable: e.retryable, retryAfterMs: e.retryAfterMs } };
  }
}
