/** An AI provider that answers like the local one after a delay, to hold jobs in their AI activity. */
import { setTimeout as sleep } from 'node:timers/promises';
import { AiProviderError, type LocalAiProvider } from '../../src/ai/types';
import { localProviderWith } from './ai-provider';

/** Options of {@link slowAiProvider}. */
export interface SlowAiOptions {
  /** Delay before each answer, in ms, or a function of the call number (1, 2, …). */
  delayMs: number | ((call: number) => number);
  /** Only these operations are delayed (default: all). */
  only?: ReadonlyArray<'analyzeCard' | 'refineScrap' | 'generateTil' | 'generateQuizzes' | 'embed' | 'explainStudyQuestion' | 'extractMemoCards'>;
}

/**
 * The local provider, each call delayed by `delayMs`. The wait honours the activity's abort signal
 * (a cancelled or timed-out activity stops waiting and rejects with a retryable TIMEOUT), so
 * cancellation reaches it like a real provider call. `calls` counts delayed calls so far.
 */
export function slowAiProvider(opts: SlowAiOptions): LocalAiProvider & { calls: number } {
  const delay = typeof opts.delayMs === 'number' ? () => opts.delayMs as number : opts.delayMs;
  const provider: LocalAiProvider & { calls: number } = Object.assign(
    localProviderWith('slow-local', async (call) => {
      if (!opts.only || (opts.only as readonly string[]).includes(call.op)) {
        provider.calls += 1;
        try {
          await sleep(delay(provider.calls), undefined, { signal: call.signal });
        } catch (err) {
          throw new AiProviderError('TIMEOUT', 'call aborted while waiting', true, undefined, { cause: err });
        }
      }
      return call.answer();
    }),
    { calls: 0 },
  );
  return provider;
}
