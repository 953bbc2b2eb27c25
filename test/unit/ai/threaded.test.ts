/**
 * The threaded `local` runtime (src/ai/threaded.ts), the one `createAiRuntime` returns for
 * AI_PROVIDER=local: under jest its worker threads load the TypeScript sources through tsx (a
 * thread does not go through jest's transform), so this file tests the worker-thread path itself.
 * Same answers as the in-process runtime, the same errors, cancellation, and an event loop that
 * keeps turning while a heavy input is processed.
 */
import {
  AiRuntimeError,
  createAiRuntime,
  createLocalAiRuntime,
  createThreadedLocalAiRuntime,
  type AiRuntime,
  type SourceCard,
} from '../../../src/ai';
import { analyzeLocally } from '../../../src/ai/local';
import { loadConfig } from '../../../src/families';
import { BREAD, COOKING_KO, OS_SCHED_KO, PG_INDEX_A, PG_INDEX_B, TLS } from './corpus';

const threaded = createThreadedLocalAiRuntime({ threads: 2 });
const inProcess = createLocalAiRuntime();
afterAll(() => threaded.close());

const TEXTS = [PG_INDEX_A, PG_INDEX_B, BREAD, TLS, OS_SCHED_KO, COOKING_KO];
const CARDS: SourceCard[] = TEXTS.map((content, i) => {
  const { title, summary } = analyzeLocally({ content });
  return { cardId: `7a000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`, title, summary, content };
});
/** Ordinary prose of about 400,000 characters: a second or so of CPU in one call. */
const HEAVY = `# A long scrap\n\n${TEXTS.join('\n\n').repeat(120)}`;

async function rejection(p: Promise<unknown>): Promise<AiRuntimeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiRuntimeError);
  return err as AiRuntimeError;
}

/**
 * Event-loop turns (a setImmediate chain) seen while `call` is pending. Counts, never durations: a
 * blocked loop gives 0, a free one gives at least 1 for anything that is not instantaneous.
 */
async function turnsDuring(call: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let pending = true;
  const tick = () => {
    if (!pending) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await call();
  } finally {
    pending = false;
  }
  return turns;
}

describe('createAiRuntime for AI_PROVIDER=local', () => {
  test('returns the worker-thread runtime, whose threads load the sources under jest', async () => {
    const ai = createAiRuntime(loadConfig({ AI_PROVIDER: 'local' }).ai) as AiRuntime & { execution?: string; close?: () => Promise<void> };
    expect(ai.provider).toBe('local');
    expect(ai.execution).toBe('worker-thread');
    expect((await ai.analyzeCard({ content: PG_INDEX_A })).title).toBe(analyzeLocally({ content: PG_INDEX_A }).title);
    await ai.close?.();
  });
});

describe('same answers as the in-process runtime', () => {
  test('analysis, refinement and embeddings of every corpus text', async () => {
    for (const content of TEXTS) {
      expect(await threaded.analyzeCard({ content })).toEqual(await inProcess.analyzeCard({ content }));
      expect(await threaded.refineScrap({ content })).toEqual(await inProcess.refineScrap({ content }));
    }
    expect(await threaded.embed(TEXTS)).toEqual(await inProcess.embed(TEXTS));
  });

  test('TIL and quizzes of the corpus cards', async () => {
    const til = { targetDate: '2026-12-01', cards: CARDS };
    expect(await threaded.generateTil(til)).toEqual(await inProcess.generateTil(til));
    const quiz = { cards: CARDS, types: ['OX', 'SHORT_ANSWER'] as ('OX' | 'SHORT_ANSWER')[] };
    expect(await threaded.generateQuizzes(quiz)).toEqual(await inProcess.generateQuizzes(quiz));
  });
});

describe('errors cross the thread as AiRuntimeError with their code and retry class', () => {
  test('BAD_REQUEST, not retryable: empty content, no TIL cards, non-UUID quiz card, no quiz type', async () => {
    for (const call of [
      () => threaded.analyzeCard({ content: ' \n ' }),
      () => threaded.refineScrap({ content: '' }),
      () => threaded.generateTil({ targetDate: '2026-12-01', cards: [] }),
      () => threaded.generateQuizzes({ cards: [{ ...CARDS[0]!, cardId: 'card-1' }], types: ['OX'] }),
      () => threaded.generateQuizzes({ cards: CARDS, types: [] }),
    ]) {
      const err = await rejection(call());
      expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'BAD_REQUEST', retryable: false });
    }
  });

  test('an already aborted signal: TIMEOUT, retryable, nothing sent to a thread', async () => {
    const err = await rejection(threaded.analyzeCard({ content: PG_INDEX_A }, AbortSignal.abort()));
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'TIMEOUT', retryable: true });
  });

  test('aborting a running call stops it with TIMEOUT (retryable); the runtime answers the next call', async () => {
    const controller = new AbortController();
    const call = threaded.analyzeCard({ content: HEAVY.repeat(4) }, controller.signal);
    // Abort once the call is in flight: after a few turns of the loop, not after a delay.
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    controller.abort();
    const err = await rejection(call);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'TIMEOUT', retryable: true });
    expect((await threaded.analyzeCard({ content: BREAD })).title).toBe(analyzeLocally({ content: BREAD }).title);
  });
});

describe('a thread that cannot load the runtime', () => {
  test('fails the call UPSTREAM_UNAVAILABLE (retryable) with the cause, instead of leaving it queued', async () => {
    const broken = createThreadedLocalAiRuntime({ workerModule: `${__dirname}/no-such-module.js` });
    try {
      const err = await rejection(broken.analyzeCard({ content: PG_INDEX_A }));
      expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
      expect(err.message).toContain('no-such-module');
    } finally {
      await broken.close();
    }
  });
});

describe('the event loop stays free (heartbeats and HTTP keep being served)', () => {
  test('while one heavy input is analysed in a thread, the loop keeps turning', async () => {
    const turns = await turnsDuring(() => threaded.analyzeCard({ content: HEAVY }));
    expect(turns).toBeGreaterThan(0);
  });

  test('three heavy inputs at once (the demo that stalled /health): the loop keeps turning', async () => {
    const turns = await turnsDuring(() =>
      Promise.all([
        threaded.analyzeCard({ content: HEAVY }),
        threaded.generateTil({ targetDate: '2026-12-01', cards: CARDS.map((c) => ({ ...c, content: HEAVY.slice(0, 8_000) })) }),
        threaded.refineScrap({ content: HEAVY }),
      ]),
    );
    expect(turns).toBeGreaterThan(0);
  });

  test('the in-process runtime, by contrast, holds the loop for the whole call (what the test above detects)', async () => {
    const turns = await turnsDuring(() => inProcess.analyzeCard({ content: HEAVY }));
    expect(turns).toBe(0);
  });
});
