/**
 * The local-task plumbing (src/ai/local-tasks.ts, src/ai/local.ts): a task module's entry turns
 * every failure into data with a code and retry class, the reply turns it back into the same
 * AiProviderError, and the in-process provider runs the module a task names.
 */
import { createLocalAiProvider } from '../../../src/ai/local';
import { localOperations, localTaskEntry, replyValue } from '../../../src/ai/local-tasks';
import { AiProviderError, type LocalAiProvider } from '../../../src/ai/types';

const HANDLERS = {
  double: (n: number) => n * 2,
  refuse: (_: string): never => {
    throw new AiProviderError('BAD_REQUEST', 'refused', false);
  },
  crash: (_: string): never => {
    throw new TypeError('boom');
  },
};
const entry = localTaskEntry(HANDLERS);
const run = (op: string, input: unknown) => entry({ module: 'test', op, input });

async function rejection(p: Promise<unknown>): Promise<AiProviderError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AiProviderError);
  return err as AiProviderError;
}

describe('localTaskEntry', () => {
  test('answers the handler of the named operation', () => {
    expect(run('double', 21)).toEqual({ ok: true, value: 42 });
  });

  test("a handler's AiProviderError keeps its code and retry class; any other error is MALFORMED_OUTPUT, not retryable", () => {
    expect(run('refuse', 'x')).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'refused', retryable: false, retryAfterMs: undefined } });
    expect(run('crash', 'x')).toEqual({ ok: false, error: { code: 'MALFORMED_OUTPUT', message: 'local crash failed: boom', retryable: false, retryAfterMs: undefined } });
  });

  test('an unknown operation (an inherited name included) is BAD_REQUEST, not retryable', () => {
    for (const op of ['nope', 'toString', '__proto__']) {
      expect(run(op, 1)).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST', message: `unknown local AI task: ${JSON.stringify(op)}`, retryable: false } });
    }
  });
});

describe('replyValue', () => {
  test('the value of a success; the error of a failure as the AiProviderError it was', () => {
    expect(replyValue({ ok: true, value: [1] })).toEqual([1]);
    const thrown = (() => {
      try {
        replyValue({ ok: false, error: { code: 'RATE_LIMITED', message: 'slow down', retryable: true, retryAfterMs: 1500 } });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(AiProviderError);
    expect(thrown).toMatchObject({ code: 'RATE_LIMITED', message: 'slow down', retryable: true, retryAfterMs: 1500 });
  });
});

describe('the in-process local provider', () => {
  const provider = createLocalAiProvider();
  const module = require.resolve('../../../src/ai/scraps/local-tasks');

  test('runs the task of the module it names, typed through localOperations', async () => {
    const seen: unknown[] = [];
    const spy: LocalAiProvider = { ...provider, runLocal: (task, signal) => (seen.push(task), provider.runLocal(task, signal)) };
    const task = localOperations<{ refineScrap: (input: { content: string }) => { refinedContent: string } }>(module);
    expect(await task(spy, 'refineScrap', { content: '*  a point  ' })).toEqual({ refinedContent: '-  a point' });
    expect(seen).toEqual([{ module, op: 'refineScrap', input: { content: '*  a point  ' } }]);
  });

  test('a module that cannot be loaded is UPSTREAM_UNAVAILABLE (retryable); an aborted signal is TIMEOUT (retryable)', async () => {
    const missing = await rejection(provider.runLocal({ module: `${__dirname}/no-such-tasks.ts`, op: 'x', input: null }));
    expect({ code: missing.code, retryable: missing.retryable }).toEqual({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
    const aborted = await rejection(provider.runLocal({ module, op: 'refineScrap', input: { content: 'x' } }, AbortSignal.abort()));
    expect({ code: aborted.code, retryable: aborted.retryable }).toEqual({ code: 'TIMEOUT', retryable: true });
  });

  test('embeds with the local model, its identity named', async () => {
    expect(provider.embeddingModel).toBe('local:hash-tfidf-1536@1');
    const [v] = await provider.embed(['partial indexes']);
    expect(v).toHaveLength(1536);
  });
});
