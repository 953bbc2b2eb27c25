/**
 * The `local` provider off the event loop: each task's CPU work runs in a worker thread of a small
 * piscina pool, so that the process that also serves HTTP and Temporal heartbeats (the demo runs
 * API and workers in one process) keeps its event loop free while a large document or a batch of texts
 * is processed. One pool serves every family: a task names its module (`LocalTask.module`), which
 * the thread loads on first use; answers are exactly those of the in-process provider.
 *
 * Where the worker code comes from: the threads first load `local-thread` next to this module
 * (`.js` in the build, `.ts` from the sources, which a worker thread can load only through tsx,
 * registered in the thread with `--require tsx/cjs`: a thread goes through neither jest's transform
 * nor the parent's loader hooks). Without tsx, sources fall back to the in-process provider
 * (`execution: 'in-process'`).
 */
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { createLocalAiProvider, localProviderOver } from './local';
import { assertNotAborted, replyValue, type LocalReply } from './local-tasks';
import { AiProviderError, type LocalAiProvider, type LocalTask } from './types';

/** Pool settings of {@link createThreadedLocalAiProvider}. */
export interface LocalThreadOptions {
  /** Worker threads (default: the available parallelism less one for the event loop, at least 1). */
  threads?: number;
  /** An idle thread exits after this many milliseconds (default 30,000); the next call starts one. */
  idleTimeoutMs?: number;
  /** Old-generation heap limit per thread in MiB (default 1,024): a runaway input fails its call, not the process. */
  maxHeapMb?: number;
  /** The module the threads load first (default: `local-thread` next to this file); tests name a broken one. */
  workerModule?: string;
}

/** The `local` provider with how it executes; `close()` stops its threads (idle threads never keep the process alive). */
export interface ThreadedLocalAiProvider extends LocalAiProvider {
  readonly execution: 'worker-thread' | 'in-process';
  close(): Promise<void>;
}

type Entry = { filename: string; execArgv?: string[] } | { unavailable: string };

/** Where the worker threads load the provider from (see the module comment). */
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
 * A failure of the pool or thread (not of the task itself) as the provider's error; `poolError` is
 * why the pool was discarded, when it was.
 */
function threadFailure(err: unknown, signal?: AbortSignal, poolError?: string): AiProviderError {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (signal?.aborted || e?.name === 'AbortError') {
    return new AiProviderError('TIMEOUT', 'local AI call aborted by the caller (its worker thread was stopped)', true, undefined, { cause: err });
  }
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new AiProviderError('BAD_REQUEST', `input too large for the local AI provider: ${message}`, false, undefined, { cause: err });
  }
  const why = poolError ? ` (${poolError})` : '';
  return new AiProviderError('UPSTREAM_UNAVAILABLE', `local AI worker thread failed: ${message}${why}`, true, undefined, { cause: err });
}

/**
 * Creates the `local` provider whose tasks run in worker threads (see the module comment), the
 * provider `createAiProvider` returns for `AI_PROVIDER=local`. Same answers and the same
 * {@link AiProviderError}s as `createLocalAiProvider`, plus: TIMEOUT (retryable) when the signal
 * aborts a running task, whose thread is then stopped; BAD_REQUEST (not retryable) when a task
 * exceeds the thread's heap limit; UPSTREAM_UNAVAILABLE (retryable) when a thread dies otherwise
 * or a task's module cannot be loaded. Threads start on the first call.
 */
export function createThreadedLocalAiProvider(opts: LocalThreadOptions = {}): ThreadedLocalAiProvider {
  const entry = threadEntry(opts.workerModule);
  if ('unavailable' in entry) return { ...createLocalAiProvider(), execution: 'in-process', close: async () => undefined };

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
      // A thread failing outside any task could not load its first module: the calls queued for it
      // would wait forever. Discard the pool (its queued calls reject, retryable); the next call makes a new one.
      p.on('error', (err: unknown) => {
        poolError = err instanceof Error ? err.message : String(err);
        if (pool === p) pool = undefined;
        void p.destroy().catch(() => undefined);
      });
      pool = p;
    }
    return pool;
  };

  const provider = localProviderOver(async (task: LocalTask, signal?: AbortSignal) => {
    assertNotAborted(signal);
    let reply: LocalReply;
    try {
      reply = (await getPool().run(task, { filename: task.module, ...(signal ? { signal } : {}) })) as LocalReply;
    } catch (err) {
      throw threadFailure(err, signal, poolError);
    }
    return replyValue(reply);
  });
  return {
    ...provider,
    execution: 'worker-thread',
    close: async () => {
      const p = pool;
      pool = undefined;
      await p?.destroy();
    },
  };
}
