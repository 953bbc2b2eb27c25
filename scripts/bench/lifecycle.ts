/**
 * What every part of one bench run shares: its output, its clock, the clean-up of everything it
 * started (also on error and on Ctrl-C), the load threads it runs, and the health of the Temporal
 * workers in this process.
 */
import { performance } from 'node:perf_hooks';
import type { Worker as Thread } from 'node:worker_threads';
import { createStops } from '../lib/stops';

/** Prints one report line on stdout (service logs go to stderr). */
export const say = (s = ''): void => void process.stdout.write(`${s}\n`);

const RUN_START = performance.now();
/** `[12 s]`: time since the run started, to see where the time budget goes. */
export const elapsed = (): string => `[${((performance.now() - RUN_START) / 1000).toFixed(0)} s]`;

/** Resolves after `ms` (a pause of a poll loop, never a wait for a condition). */
export const sleep = (ms: number): Promise<void> => new Promise<void>((r) => setTimeout(r, ms));

const stops = createStops('bench', { debug: Boolean(process.env.BENCH_DEBUG) });
const liveThreads = new Set<Thread>();
let stopping: Promise<void> | undefined;

/** Registers a clean-up step; {@link stopAll} runs them in reverse order, each bounded to 20 s (BENCH_DEBUG=1 names them). */
export function started(what: string, stop: () => Promise<unknown>): void {
  stops.add(what, stop);
}

/** Tracks a load thread so that {@link stopAll} terminates it; returns the untrack function. */
export function trackThread(thread: Thread): () => void {
  liveThreads.add(thread);
  return () => void liveThreads.delete(thread);
}

/** Terminates the load threads and stops everything started, once (later calls get the same promise). */
export function stopAll(): Promise<void> {
  return (stopping ??= (async () => {
    for (const t of liveThreads) await t.terminate().catch(() => undefined);
    await stops.stopAll();
  })());
}

let workerFailure: Error | undefined;
/** Records that a Temporal worker of this process stopped with an error. */
export function reportWorkerFailure(err: unknown): void {
  workerFailure = err instanceof Error ? err : new Error(String(err));
}
/** Throws when a worker failed, so that waits stop at once instead of running into their timeouts. */
export function assertWorkersAlive(): void {
  if (workerFailure) throw new Error(`a Temporal worker failed: ${workerFailure.message}`, { cause: workerFailure });
}

/** Temporal SDK warning messages (first 90 characters) → count, summarised at the end of the run. */
export const sdkWarnings = new Map<string, number>();
