/** An AI runtime that answers like the local one after a delay, to hold jobs in their AI activity. */
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalAiRuntime } from '../../src/ai/local';
import { AiRuntimeError, type AiRuntime } from '../../src/ai/types';

/** Options of {@link slowAiRuntime}. */
export interface SlowAiOptions {
  /** Delay before each answer, in ms, or a function of the call number (1, 2, …). */
  delayMs: number | ((call: number) => number);
  /** Only these methods are delayed (default: all). */
  only?: ReadonlyArray<'analyzeCard' | 'refineScrap' | 'generateTil' | 'generateQuizzes' | 'embed' | 'explainStudyQuestion' | 'extractMemoCards'>;
}

/**
 * The local runtime, each call delayed by `delayMs`. The wait honours the activity's abort signal
 * (a cancelled or timed-out activity stops waiting and rejects with a retryable TIMEOUT), so
 * cancellation reaches it like a real provider call. `calls` counts delayed calls so far.
 */
export function slowAiRuntime(opts: SlowAiOptions): AiRuntime & { calls: number } {
  const local = createLocalAiRuntime();
  const delay = typeof opts.delayMs === 'number' ? () => opts.delayMs as number : opts.delayMs;
  const rt = {
    provider: 'slow-local',
    calls: 0,
    async wait(method: NonNullable<SlowAiOptions['only']>[number], signal?: AbortSignal) {
      if (opts.only && !opts.only.includes(method)) return;
      rt.calls += 1;
      try {
        await sleep(delay(rt.calls), undefined, { signal });
      } catch (err) {
        throw new AiRuntimeError('TIMEOUT', 'call aborted while waiting', true, undefined, { cause: err });
      }
    },
    analyzeCard: async (i: Parameters<AiRuntime['analyzeCard']>[0], s?: AbortSignal) => (await rt.wait('analyzeCard', s), local.analyzeCard(i, s)),
    refineScrap: async (i: Parameters<AiRuntime['refineScrap']>[0], s?: AbortSignal) => (await rt.wait('refineScrap', s), local.refineScrap(i, s)),
    generateTil: async (i: Parameters<AiRuntime['generateTil']>[0], s?: AbortSignal) => (await rt.wait('generateTil', s), local.generateTil(i, s)),
    generateQuizzes: async (i: Parameters<AiRuntime['generateQuizzes']>[0], s?: AbortSignal) => (await rt.wait('generateQuizzes', s), local.generateQuizzes(i, s)),
    embed: async (t: string[], s?: AbortSignal) => (await rt.wait('embed', s), local.embed(t, s)),
    explainStudyQuestion: async (i: Parameters<AiRuntime['explainStudyQuestion']>[0], s?: AbortSignal) => (await rt.wait('explainStudyQuestion', s), local.explainStudyQuestion(i, s)),
    extractMemoCards: async (i: Parameters<AiRuntime['extractMemoCards']>[0], s?: AbortSignal) => (await rt.wait('extractMemoCards', s), local.extractMemoCards(i, s)),
  };
  return rt;
}
