/**
 * The threaded `local` provider (src/ai/threaded.ts), the one `createAiProvider` returns for
 * AI_PROVIDER=local, under the families' ports: under jest its worker threads load the TypeScript
 * sources through tsx (a thread does not go through jest's transform), so this file tests the
 * worker-thread path itself, one pool loading each family's task module. Same answers as the
 * in-process provider, the same errors, cancellation, and an event loop that keeps turning while a
 * heavy input is processed.
 */
import { AiProviderError, createAiProvider, createLocalAiProvider, createThreadedLocalAiProvider } from '../../../src/ai';
import { createScrapsAi } from '../../../src/ai/scraps';
import type { SourceCard } from '../../../src/ai/scraps/answers';
import { analyzeScrapLocally } from '../../../src/ai/scraps/extractive/analysis';
import { createStudyAi } from '../../../src/ai/study';
import { loadConfig } from '../../../src/families';
import { BREAD, COOKING_KO, OS_SCHED_KO, PG_INDEX_A, PG_INDEX_B, TLS } from './corpus';

const pool = createThreadedLocalAiProvider({ threads: 2 });
const threaded = createScrapsAi(pool);
const inProcess = createScrapsAi(createLocalAiProvider());
afterAll(() => pool.close());

const TEXTS = [PG_INDEX_A, PG_INDEX_B, BREAD, TLS, OS_SCHED_KO, COOKING_KO];
const CARDS: SourceCard[] = TEXTS.map((content, i) => {
  const { title, summary } = analyzeScrapLocally({ content });
  return { cardId: `7a000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`, title, summary, content };
});
/** Ordinary prose of about 400,000 characters: a second or so of CPU in one call. */
const HEAVY = `# A long scrap\n\n${TEXTS.join('\n\n').repeat(120)}`;

async function rejection(p: Promise<unknown>): Promise<AiProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiProviderError);
  return err as AiProviderError;
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

describe('createAiProvider for AI_PROVIDER=local', () => {
  test('returns the worker-thread provider, whose threads load the sources under jest', async () => {
    const provider = createAiProvider(loadConfig({ AI_PROVIDER: 'local' }).ai) as ReturnType<typeof createThreadedLocalAiProvider>;
    expect(provider.name).toBe('local');
    expect(provider.execution).toBe('worker-thread');
    expect((await createScrapsAi(provider).analyzeCard({ content: PG_INDEX_A })).title).toBe(analyzeScrapLocally({ content: PG_INDEX_A }).title);
    await provider.close?.();
  });
});

describe('same answers as the in-process provider', () => {
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

describe('one pool serves every family: each task names its module', () => {
  test('study explanations and memo cards in the same threads answer as in this thread', async () => {
    const study = createStudyAi(pool);
    const local = createStudyAi(createLocalAiProvider());
    const question = { topic: 'Indexes', question: 'What does PostgreSQL use an index for?', related: [{ ref: 'knowledge_card:1', text: PG_INDEX_A }] };
    const explanation = await study.explainStudyQuestion(question);
    expect(explanation).toEqual(await local.explainStudyQuestion(question));
    const input = { question: question.question, explanation: explanation.explanation, related: [] };
    expect(await study.extractMemoCards(input)).toEqual(await local.extractMemoCards(input));
    const err = await rejection(study.extractMemoCards({ ...input, explanation: ' ' }));
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'BAD_REQUEST', retryable: false });
  });

  test('a task naming a module that does not exist fails UPSTREAM_UNAVAILABLE (retryable); the pool answers the next call', async () => {
    const err = await rejection(pool.runLocal({ module: `${__dirname}/no-such-tasks.js`, op: 'analyzeCard', input: { content: BREAD } }));
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
    expect(err.message).toContain('no-such-tasks');
    expect((await threaded.analyzeCard({ content: BREAD })).title).toBe(analyzeScrapLocally({ content: BREAD }).title);
  });
});

describe('errors cross the thread as AiProviderError with their code and retry class', () => {
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

  test('aborting a running call stops it with TIMEOUT (retryable); the provider answers the next call', async () => {
    const controller = new AbortController();
    const call = threaded.analyzeCard({ content: HEAVY.repeat(4) }, controller.signal);
    // Abort once the call is in flight: after a few turns of the loop, not after a delay.
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    controller.abort();
    const err = await rejection(call);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: 'TIMEOUT', retryable: true });
    expect((await threaded.analyzeCard({ content: BREAD })).title).toBe(analyzeScrapLocally({ content: BREAD }).title);
  });
});

describe('a thread that cannot load its first module', () => {
  test('fails the call UPSTREAM_UNAVAILABLE (retryable) with the cause, instead of leaving it queued', async () => {
    const broken = createThreadedLocalAiProvider({ workerModule: `${__dirname}/no-such-module.js` });
    try {
      const err = await rejection(createScrapsAi(broken).analyzeCard({ content: PG_INDEX_A }));
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

  test('the in-process provider, by contrast, holds the loop for the whole call (what the test above detects)', async () => {
    const turns = await turnsDuring(() => inProcess.analyzeCard({ content: HEAVY }));
    expect(turns).toBe(0);
  });
});
