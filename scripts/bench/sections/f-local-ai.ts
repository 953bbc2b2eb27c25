/**
 * (f) The `local` AI runtime's text processing (no server needed).
 *
 * - One pass of the scraps family's local tasks (analyzeCard, refineScrap, a one-card TIL and its quizzes, all in this
 *   thread) over adversarial inputs that would make naive regular expressions quadratic, against
 *   ordinary prose (README texts) of the same length; then the slowest of them at twice the length
 *   against itself, which is about 2× for linear work (about 4× for quadratic work).
 * - The longest event-loop stall while the TIL of a day of 170 README-sized cards and two scraps of
 *   the API's maximum size are generated at once: with the provider in worker threads (what
 *   `createAiProvider` returns) against the same calls in this thread.
 *
 * Wall times are medians of `runs` repetitions; as everywhere in the benchmark, read the ratios.
 */
import { performance } from 'node:perf_hooks';
import { createLocalAiProvider } from '../../../src/ai/local';
import { createScrapsAi } from '../../../src/ai/scraps';
import type { SourceCard } from '../../../src/ai/scraps/answers';
import { SCRAPS_LOCAL_TASKS as tasks } from '../../../src/ai/scraps/local-tasks';
import { createThreadedLocalAiProvider } from '../../../src/ai/threaded';
import { readmeCorpus } from '../corpus';
import { elapsed, say } from '../lifecycle';
import { median, ms, ratio } from '../measure';
import type { BenchSection } from '../section';
import type { Row } from '../summary';

/** Inputs that make backtracking expressions quadratic, built to `n` characters. */
const ADVERSARIAL: [string, (n: number) => string][] = [
  ['"![" repeated', (n) => '!['.repeat(n / 2)],
  ['"[" repeated', (n) => '['.repeat(n)],
  ['"](" repeated', (n) => ']('.repeat(n / 2)],
  ['"*" repeated', (n) => '*'.repeat(n)],
  ['"`" repeated', (n) => '`'.repeat(n)],
  ['"<" repeated', (n) => '<'.repeat(n)],
  ['"<a " repeated (unclosed tags)', (n) => '<a '.repeat(n / 3)],
  ['"*a " repeated (unclosed emphasis)', (n) => '*a '.repeat(n / 3)],
  ['spaces inside one line', (n) => `a${' '.repeat(n - 2)}b`],
  ['closing quotes after a full stop', (n) => `a.${'"'.repeat(n - 4)} b`],
];

/** One pass of the local tasks over `content`, in this thread; returns its wall time in ms. */
function pass(content: string): number {
  const card: SourceCard = { cardId: '0b000000-0000-4000-8000-000000000001', title: 'Bench card', summary: 'A card for the benchmark.', content };
  const t0 = performance.now();
  tasks.analyzeCard({ content });
  tasks.refineScrap({ content });
  tasks.generateTil({ targetDate: '2026-12-01', cards: [card] });
  tasks.generateQuizzes({ cards: [card], types: ['OX', 'SHORT_ANSWER'] });
  return performance.now() - t0;
}

/** Median wall time of `runs` passes, after one untimed pass (the JIT compiles the paths this input takes). */
function timed(content: string, runs: number): number {
  pass(content);
  return median(Array.from({ length: runs }, () => pass(content)));
}

/** `prose` repeated and cut to `n` characters. */
function ordinary(prose: string, n: number): string {
  return prose.repeat(Math.ceil(n / prose.length)).slice(0, n);
}

/**
 * The longest gap (ms) between ticks of a 5 ms interval while `calls` run: about 5 ms when the loop
 * is free, the length of the longest synchronous stretch otherwise. A late tick is counted too: the
 * interval runs on for 20 ms after the calls.
 */
async function longestStall(calls: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let max = 0;
  const interval = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
  }, 5);
  try {
    await calls();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    clearInterval(interval);
  }
  return max;
}

/**
 * Runs (f) and prints its lines; returns the summary rows. `chars` is the input length (the API's
 * SCRAP_MAX_CONTENT_CHARS default is 100,000), `prose` ordinary text to repeat.
 */
async function benchLocalAi(chars: number, runs: number, prose: string): Promise<Row[]> {
  for (let i = 0; i < 3; i++) pass(ordinary(prose, chars)); // warm-up of the common paths
  const base = timed(ordinary(prose, chars), runs);
  say(`ordinary prose (README texts), ${chars} characters: ${ms(base)} per pass (median of ${runs})`);
  let worst = { name: '', make: ADVERSARIAL[0]![1], t: 0 };
  for (const [name, make] of ADVERSARIAL) {
    const t = timed(make(chars), runs);
    say(`${name.padEnd(36)} ${ms(t).padStart(10)}  ratio ${ratio(t / base)}`);
    if (t > worst.t) worst = { name, make, t };
  }
  const worstTwice = timed(worst.make(2 * chars), runs);
  const baseTwice = timed(ordinary(prose, 2 * chars), runs);
  say(`twice the length, ${2 * chars} characters: ${worst.name} ${ms(worstTwice)} (${ratio(worstTwice / worst.t)} of ${chars}); ordinary prose ${ms(baseTwice)} (${ratio(baseTwice / base)})`);

  // A busy moment of the demo: the TIL of a day of 170 README-sized cards and two large scraps at once.
  const heavy = ordinary(prose, chars);
  const day: SourceCard[] = Array.from({ length: 170 }, (_, i) => {
    const content = ordinary(prose.slice((i * 1009) % prose.length) + prose, 8_000);
    return { cardId: `0b000000-0000-4000-8000-${String(i + 2).padStart(12, '0')}`, title: `Card ${i + 1}`, summary: content.slice(0, 300), content };
  });
  const threadedProvider = createThreadedLocalAiProvider();
  const threaded = createScrapsAi(threadedProvider);
  const inProcess = createScrapsAi(createLocalAiProvider());
  const busy = (ai: typeof inProcess) =>
    Promise.all([
      ai.generateTil({ targetDate: '2026-12-01', cards: day }),
      ai.analyzeCard({ content: `${heavy}a` }),
      ai.analyzeCard({ content: `${heavy}b` }),
    ]);
  try {
    await threaded.analyzeCard({ content: 'warm-up: the first call starts a thread' });
    await busy(inProcess); // warm-up of this thread's JIT, unmeasured
    const stallThreaded = await longestStall(() => busy(threaded));
    const stallInProcess = await longestStall(() => busy(inProcess));
    say(`longest gap between 5 ms timer ticks while a TIL of 170 cards and 2 scraps of ${chars} characters are generated at once: worker threads (${threadedProvider.execution}) ${ms(stallThreaded)}, in this thread ${ms(stallInProcess)}`);
    return [
      { measure: `(f) local AI pass, ${chars} chars: slowest adversarial input`, subject: `${ms(worst.t)} ${worst.name}`, baseline: `${ms(base)} ordinary prose`, ratio: ratio(worst.t / base) },
      { measure: `(f) the same input at ${2 * chars} chars`, subject: ms(worstTwice), baseline: `${ms(worst.t)} at ${chars} chars`, ratio: ratio(worstTwice / worst.t) },
      { measure: '(f) longest event-loop stall (5 ms ticks), TIL of 170 cards + 2 scraps at once', subject: `${ms(stallThreaded)} worker threads`, baseline: `${ms(stallInProcess)} in the event-loop thread`, ratio: ratio(stallThreaded / stallInProcess) },
    ];
  } finally {
    await threadedProvider.close();
  }
}

/** Section (f). */
export const sectionF: BenchSection = {
  letter: 'f',
  needs: 'nothing',
  async run({ sizes }) {
    say();
    say(`## (f) local AI provider: adversarial vs ordinary input of ${sizes.aiChars} characters, and the event loop ${elapsed()}`);
    const prose = (await readmeCorpus(24)).join('\n\n');
    return benchLocalAi(sizes.aiChars, sizes.aiRuns, prose);
  },
};
