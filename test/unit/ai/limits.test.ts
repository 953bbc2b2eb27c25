/**
 * The scraps port over the local provider at the edges of its input (SAN-7, SAN-8, SAN-9, SAN-11): astral-plane and
 * emoji-heavy text gives well-formed output (PostgreSQL rejects lone surrogates), adversarial
 * markdown gives the right answer (the text processing is linear, see the bench's (f) in
 * scripts/bench/sections/f-local-ai.ts for its speed), and a day of 170 README-sized cards gives
 * a TIL within its limits.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { createLocalAiProvider } from '../../../src/ai';
import { createScrapsAi } from '../../../src/ai/scraps';
import { CardAnalysisSchema, RefineResultSchema, TilResultSchema, type SourceCard } from '../../../src/ai/scraps/answers';
import { analyzeScrapLocally } from '../../../src/ai/scraps/extractive/analysis';
import { TIL_LIMITS } from '../../../src/ai/scraps/extractive/til';
import { QuizSchema } from '../../../src/domain/scraps/quizzes';
import { PG_INDEX_A, OS_SCHED_KO } from './corpus';

const ai = createScrapsAi(createLocalAiProvider());
const GRIN = '😀';
const uuid = (n: number) => `0e000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Every string in `value` (deeply) is well-formed UTF-16. */
function allWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(allWellFormed);
  if (value !== null && typeof value === 'object') return Object.values(value).every(allWellFormed);
  return true;
}

describe('astral-plane and emoji-heavy input gives well-formed, valid output', () => {
  const MIXED = `# 운영체제 스케줄링 😀🚀\n\n${'선점형 스케줄러는 타이머 인터럽트로 실행 중인 프로세스를 멈춘다 👩‍💻. '.repeat(12)}\n\n${'𝒳𝒴𝒵 '.repeat(40)}`;
  const inputs: [string, { content: string; title?: string }][] = [
    ['content of 61 × 😀', { content: GRIN.repeat(61) }],
    ['title of 61 × 😀', { content: PG_INDEX_A, title: GRIN.repeat(61) }],
    ['content and title of 61 × 😀', { content: GRIN.repeat(61), title: GRIN.repeat(61) }],
    ['odd offsets: a + 61 × 😀', { content: `a${GRIN.repeat(61)}`, title: `a${GRIN.repeat(61)}` }],
    ['mixed Korean and emoji', { content: MIXED }],
    ['mixed Korean and emoji with an emoji title', { content: `${OS_SCHED_KO}\n\n${GRIN.repeat(300)}`, title: `스케줄링 ${'🧵'.repeat(70)}` }],
    ['2,000 emoji sentences', { content: `${GRIN.repeat(700)}. `.repeat(3) + '👍🏽'.repeat(500) }],
  ];

  test.each(inputs)('%s: analysis (title, summary, tags) and refinement', async (_name, input) => {
    const analysis = await ai.analyzeCard(input);
    expect(CardAnalysisSchema.safeParse(analysis).success).toBe(true);
    expect(allWellFormed(analysis)).toBe(true);
    const refined = await ai.refineScrap(input);
    expect(RefineResultSchema.safeParse(refined).success).toBe(true);
    expect(allWellFormed(refined)).toBe(true);
  });

  test('an emoji title is clipped to whole emoji: 120 code units at most, ending in …', async () => {
    const { title } = await ai.analyzeCard({ content: PG_INDEX_A, title: GRIN.repeat(61) });
    expect(title).toBe(`${GRIN.repeat(59)}…`);
  });

  test('TIL markdown and quizzes from such cards are well-formed and valid', async () => {
    const cards: SourceCard[] = inputs.map(([, input], i) => {
      const { title, summary } = analyzeScrapLocally(input);
      return { cardId: uuid(i + 1), title: input.title ?? title, summary, content: input.content };
    });
    for (const subset of [cards.slice(0, 1), cards.slice(1, 2), cards]) {
      const til = await ai.generateTil({ targetDate: '2026-12-01', cards: subset });
      expect(TilResultSchema.safeParse(til).success).toBe(true);
      expect(allWellFormed(til)).toBe(true);
      const quizzes = await ai.generateQuizzes({ cards: subset, types: ['OX', 'SHORT_ANSWER'] });
      expect(quizzes.every((q) => QuizSchema.safeParse(q).success)).toBe(true);
      expect(allWellFormed(quizzes)).toBe(true);
    }
  });
});

describe('adversarial markdown of 100,000 characters: the right answer', () => {
  const HEAD = '# Real title\n\nThe scheduler preempts running threads on every timer interrupt.\n\n';
  const cases: [string, string][] = [
    ['"![" × 50,000', '!['.repeat(50_000)],
    ['"[" × 100,000', '['.repeat(100_000)],
    ['"](" × 50,000', ']('.repeat(50_000)],
    ['"*" × 100,000', '*'.repeat(100_000)],
    ['"`" × 100,000', '`'.repeat(100_000)],
    ['"<" × 100,000', '<'.repeat(100_000)],
    ['"<a " × 33,000 (nested unclosed tags)', '<a '.repeat(33_000)],
    ['"*a " × 33,000 (unclosed emphasis)', '*a '.repeat(33_000)],
    ['spaces inside a line', `a${' '.repeat(100_000)}b`],
    ['a heading of spaces', `# a${' '.repeat(100_000)}b`],
    ['closing quotes after a full stop', `a.${'"'.repeat(100_000)} b`],
    ['"." × 100,000', '.'.repeat(100_000)],
  ];

  test.each(cases)('%s after a heading and a sentence: title and summary come from them', async (_name, junk) => {
    const content = `${HEAD}${junk}`;
    const analysis = await ai.analyzeCard({ content });
    expect(analysis.title).toBe('Real title');
    expect(analysis.summary).toContain('The scheduler preempts running threads on every timer interrupt.');
    expect(CardAnalysisSchema.safeParse(analysis).success).toBe(true);
    const { refinedContent } = await ai.refineScrap({ content });
    expect(refinedContent.startsWith(HEAD.trim())).toBe(true);
  });

  test.each(cases)('%s alone: every method answers a valid result', async (_name, junk) => {
    expect(CardAnalysisSchema.safeParse(await ai.analyzeCard({ content: junk })).success).toBe(true);
    const card: SourceCard = { cardId: uuid(1), title: 'Junk', summary: 'A card of junk.', content: junk };
    const til = await ai.generateTil({ targetDate: '2026-12-01', cards: [card] });
    expect(til.tilMarkdown.startsWith('# TIL 2026-12-01: Junk')).toBe(true);
    const quizzes = await ai.generateQuizzes({ cards: [card], types: ['OX', 'SHORT_ANSWER'] });
    expect(quizzes.every((q) => QuizSchema.safeParse(q).success)).toBe(true);
    const [vector] = await ai.embed([junk]);
    expect(vector).toHaveLength(1536);
  });
});

/** README files of installed packages, as the demo picks them (1.5–60 kB, duplicates skipped), sorted. */
async function readmes(n: number): Promise<string[]> {
  const root = path.resolve(__dirname, '../../..');
  const files = (await glob(['node_modules/*/README.md', 'node_modules/@*/*/README.md'], { cwd: root, absolute: true, caseSensitiveMatch: false })).sort();
  const seen = new Set<string>();
  for (const file of files) {
    const size = statSync(file).size;
    if (size >= 1500 && size <= 60_000) seen.add(readFileSync(file, 'utf8'));
    if (seen.size >= n) break;
  }
  return [...seen];
}

/** The `## ` section titles of a TIL, in order, and the lines of its Sources list. */
function outline(markdown: string): { sections: string[]; sources: string[] } {
  const [body = '', sources = ''] = markdown.split('\n\n## Sources\n\n');
  const sections = body.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3));
  return { sections, sources: sources.split('\n') };
}

describe('SAN-9: a TIL of a day with many cards stays within its limits', () => {
  let cards: SourceCard[] = [];

  beforeAll(async () => {
    const texts = await readmes(170);
    expect(texts).toHaveLength(170);
    // As the job builds them: the analysis' title and summary, content cut as loadSourceCards does.
    cards = texts.map((content, i) => {
      const { title, summary } = analyzeScrapLocally({ content });
      return { cardId: uuid(i + 1), title, summary, content: content.slice(0, 8_000) };
    });
  });

  test('170 README-sized cards: valid, within the markdown limit, first cards in sections, every card under Sources', async () => {
    const til = await ai.generateTil({ targetDate: '2026-12-01', cards });
    expect(TilResultSchema.safeParse(til).success).toBe(true);
    expect(til.tilMarkdown.length).toBeLessThanOrEqual(TIL_LIMITS.markdownMax);
    expect(til.tilMarkdown.isWellFormed()).toBe(true);

    const { sections, sources } = outline(til.tilMarkdown);
    expect(sections.length).toBeGreaterThan(10);
    expect(sections.length).toBeLessThan(cards.length);
    // Sources lists all 170 in card order; the sections are the first of them, in the same order.
    expect(sources).toHaveLength(cards.length);
    expect(sources.every((l) => l.startsWith('- '))).toBe(true);
    expect(sections).toEqual(sources.slice(0, sections.length).map((l) => l.slice(2)));
    expect(sources[0]).toBe(`- ${cards[0]?.title}`);
    // The overflow is announced in the overview, with the counts.
    expect(til.tilMarkdown).toContain(`The first ${sections.length} are summarised below; the other ${cards.length - sections.length} are listed by title under Sources.`);
    // Each section is bounded; no code fence is left open.
    const parts = til.tilMarkdown.split('\n## ').slice(1, 1 + sections.length);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(TIL_LIMITS.sectionMax);
    expect(til.tilMarkdown.split('\n').filter((l) => /^\s{0,3}(```|~~~)/.test(l)).length % 2).toBe(0);
  });

  test('the same day twice gives the same TIL (deterministic)', async () => {
    const again = await createScrapsAi(createLocalAiProvider()).generateTil({ targetDate: '2026-12-01', cards: cards.slice(0, 60) });
    expect(await ai.generateTil({ targetDate: '2026-12-01', cards: cards.slice(0, 60) })).toEqual(again);
  });

  test('1,000 cards with long titles: the Sources list is cut too and says how many more there are', async () => {
    const many: SourceCard[] = Array.from({ length: 1000 }, (_, i) => ({
      cardId: uuid(i + 1),
      title: `Card ${i + 1} about ${'distributed consensus and replicated logs '.repeat(3)}`.trim(),
      summary: `Raft elects a leader and replicates log entry ${i + 1} to a majority of followers.`,
      content: `Raft elects a leader and replicates log entry ${i + 1} to a majority of followers before committing it.`,
    }));
    const til = await ai.generateTil({ targetDate: '2026-12-01', cards: many });
    expect(TilResultSchema.safeParse(til).success).toBe(true);
    expect(til.tilMarkdown.length).toBeLessThanOrEqual(TIL_LIMITS.markdownMax);
    const { sources } = outline(til.tilMarkdown);
    const last = sources[sources.length - 1] ?? '';
    const listed = sources.length - 1;
    expect(last).toBe(`- … and ${1000 - listed} more cards`);
    expect(sources.join('\n').length).toBeLessThanOrEqual(TIL_LIMITS.sourcesMax);
  });

  test('a summary that starts like a code fence cannot open one', async () => {
    const card: SourceCard = { cardId: uuid(1), title: 'Fences', summary: '```js const x = 1; and more text', content: 'Code fences start with three backticks in markdown documents.' };
    const til = await ai.generateTil({ targetDate: '2026-12-01', cards: [card] });
    expect(til.tilMarkdown.split('\n').some((l) => /^\s{0,3}```/.test(l))).toBe(false);
    expect(til.tilMarkdown).toContain('\\```js const x = 1;');
  });
});
