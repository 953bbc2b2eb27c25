/**
 * The `local` provider off the event loop (SAN-7, SAN-8, SAN-9, SAN-11): each call's CPU work runs
 * in a worker thread of a small piscina pool, so that the process that also serves HTTP and
 * Temporal heartbeats (the demo runs API and workers in one process) keeps its event loop free
 * while a large scrap or a day of cards is analysed. Answers are exactly those of the in-process
 * runtime: both run {@link runLocalTask}.
 *
 * Where the worker code comes from: next to this module, `local-thread.js` in the build (dist) and
 * `local-thread.ts` from the sources, which a worker thread can load only through tsx (registered
 * in the thread with `--require tsx/cjs`; a thread goes through neither jest's transform nor the
 * parent's loader hooks). Without tsx, sources fall back to the in-process runtime
 * (`execution: 'in-process'`).
 */
import { LOCAL_EMBEDDING_MODEL } from './embedding-models';
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { assertNotAborted, createLocalAiRuntime, type LocalTask, type LocalTaskResults } from './local';
import type { LocalReply } from './local-thread';
import { AiRuntimeError, type AiRuntime } from './types';

/** Pool settings of {@link createThreadedLocalAiRuntime}. */
export interface LocalThreadOptions {
  /** Worker threads (default: the available parallelism less one for the event loop, at least 1). */
  threads?: number;
  /** An idle thread exits after this many milliseconds (default 30,000); the next call starts one. */
  idleTimeoutMs?: number;
  /** Old-generation heap limit per thread in MiB (default 1,024): a runaway input fails its call, not the process. */
  maxHeapMb?: number;
  /** The module the threads load (default: `local-thread` next to this file); tests name a broken one. */
  workerModule?: string;
}

/** The `local` runtime with how it executes; `close()` stops its threads (idle threads never keep the process alive). */
export interface ThreadedLocalAiRuntime extends AiRuntime {
  readonly execution: 'worker-thread' | 'in-process';
  close(): Promise<void>;
}

type Entry = { filename: string; execArgv?: string[] } | { unavailable: string };

/** Where the worker threads load the runtime from (see the module comment). */
function threadEntry(workerModule?: string): Entry {
  const ext = path.extname(__filename);
  const filename = workerModule ?? path.join(__dirname, `local-thread${ext}`);
  if (ext !== '.ts') return { filename };
  try {
    return { filename, execArgv: ['--require', require.resolve('tsx/cjs')] };
  } catch {
    return { unavailable: 'running from TypeScript sources without tsx installed' };
  }
}

/**
 * A failure of the pool or thread (not of the task itself) as the runtime's error; `poolError` is
 * why the pool was discarded, when it was.
 */
function threadFailure(err: unknown, signal?: AbortSignal, poolError?: string): AiRuntimeError {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (signal?.aborted || e?.name === 'AbortError') {
    return new AiRuntimeError('TIMEOUT', 'local AI call aborted by the caller (its worker thread was stopped)', true, undefined, { cause: err });
  }
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new AiRuntimeError('BAD_REQUEST', `input too large for the local AI runtime: ${message}`, false, undefined, { cause: err });
  }
  const why = poolError ? ` (${poolError})` : '';
  return new AiRuntimeError('UPSTREAM_UNAVAILABLE', `local AI worker thread failed: ${message}${why}`, true, undefined, { cause: err });
}

/**
 * Creates the `local` provider whose calls run in worker threads (see the module comment), the
 * runtime `createAiRuntime` returns for `AI_PROVIDER=local`. Same answers and the same
 * {@link AiRuntimeError}s as `createLocalAiRuntime`, plus: TIMEOUT (retryable) when the signal
 * aborts a running call, whose thread is then stopped; BAD_REQUEST (not retryable) when a call
 * exceeds the thread's heap limit; UPSTREAM_UNAVAILABLE (retryable) when a thread dies otherwise.
 * Threads start on the first call.
 */
export function createThreadedLocalAiRuntime(opts: LocalThreadOptions = {}): ThreadedLocalAiRuntime {
  const entry = threadEntry(opts.workerModule);
  if ('unavailable' in entry) return { ...createLocalAiRuntime(), execution: 'in-process', close: async () => undefined };

  let pool: Piscina | undefined;
  let poolError: string | undefined;
  const getPool = (): Piscina => {
    if (!pool) {
      const p = new Piscina({
        filename: entry.filename,
        execArgv: entry.execArgv,
        minThreads: 0,
        maxThreads: opts.threads ?? Math.max(1, os.availableParallelism() - 1),
        idleTimeout: opts.idleTimeoutMs ?? 30_000,
        resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb ?? 1024 },
      });
      // A thread failing outside any task could not load the runtime: the calls queued for it would
      // wait forever. Discard the pool (its queued calls reject, retryable); the next call makes a new one.
      p.on('error', (err: unknown) => {
        poolError = err instanceof Error ? err.message : String(err);
        if (pool === p) pool = undefined;
        void p.destroy().catch(() => undefined);
      });
      pool = p;
    }
    return pool;
  };

  const run = async <K extends LocalTask['op']>(task: Extract<LocalTask, { op: K }>, signal?: AbortSignal): Promise<LocalTaskResults[K]> => {
    assertNotAborted(signal);
    let reply: LocalReply;
    try {
      reply = (await getPool().run(task, signal ? { signal } : {})) as LocalReply;
    } catch (err) {
      throw threadFailure(err, signal, poolError);
    }
    if (reply.ok) return reply.value as LocalTaskResults[K];
    const { code, message, retryable, retryAfterMs } = reply.error;
    throw new AiRuntimeError(code, message, retryable, retryAfterMs);
  };

  return {
    provider: 'local',
    embeddingModel: LOCAL_EMBEDDING_MODEL,
    execution: 'worker-thread',
    analyzeCard: (input, signal) => run({ op: 'analyzeCard', input }, signal),
    refineScrap: (input, signal) => run({ op: 'refineScrap', input }, signal),
    generateTil: (input, signal) => run({ op: 'generateTil', input }, signal),
    generateQuizzes: (input, signal) => run({ op: 'generateQuizzes', input }, signal),
    embed: (texts, signal) => run({ op: 'embed', input: texts }, signal),
    explainStudyQuestion: (input, signal) => run({ op: 'explainStudyQuestion', input }, signal),
    extractMemoCards: (input, signal) => run({ op: 'extractMemoCards', input }, signal),
    close: async () => {
      const p = pool;
      pool = undefined;
      await p?.destroy();
    },
  };
}
