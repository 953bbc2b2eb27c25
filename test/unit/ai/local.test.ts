/** SAN-7, SAN-8: the scraps port over the offline `local` AI provider on realistic English and Korean texts. */
import { AiProviderError, EMBEDDING_DIMENSIONS, createLocalAiProvider, localEmbedding } from '../../../src/ai';
import { createScrapsAi } from '../../../src/ai/scraps';
import { CardAnalysisSchema } from '../../../src/ai/scraps/answers';
import { refineMarkdown } from '../../../src/ai/scraps/extractive/refine';
import { BREAD, COOKING_KO, OS_SCHED_KO, OS_SCHED_KO_B, PG_INDEX_A, PG_INDEX_B, TLS } from './corpus';

const CORPUS = { PG_INDEX_A, PG_INDEX_B, BREAD, TLS, OS_SCHED_KO, OS_SCHED_KO_B, COOKING_KO };
const ALL = Object.entries(CORPUS);

const ai = createScrapsAi(createLocalAiProvider());
const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosineDistance = (a: number[], b: number[]) => 1 - a.reduce((s, x, i) => s + x * (b[i] as number), 0) / (norm(a) * norm(b));
const distance = (a: string, b: string) => cosineDistance(localEmbedding(a), localEmbedding(b));
const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

async function rejection(p: Promise<unknown>): Promise<AiProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiProviderError);
  return err as AiProviderError;
}

describe('local embeddings', () => {
  test.each(ALL)('%s: 1536 finite numbers of unit length, not the empty-text vector', (_name, text) => {
    const v = localEmbedding(text);
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(v.every(Number.isFinite)).toBe(true);
    expect(norm(v)).toBeCloseTo(1, 9);
    expect(v[0]).not.toBe(1);
    expect(v.filter((x) => x !== 0).length).toBeGreaterThan(50);
  });

  test('deterministic across calls and provider instances', async () => {
    const again = await createScrapsAi(createLocalAiProvider()).embed([PG_INDEX_A, OS_SCHED_KO]);
    expect(again).toEqual([localEmbedding(PG_INDEX_A), localEmbedding(OS_SCHED_KO)]);
    expect((await ai.analyzeCard({ content: COOKING_KO })).embedding).toEqual(localEmbedding(COOKING_KO));
  });

  test('paraphrases on the same topic are near (cosine distance < 0.45), in English and Korean', () => {
    expect(distance(PG_INDEX_A, PG_INDEX_B)).toBeLessThan(0.45);
    expect(distance(OS_SCHED_KO, OS_SCHED_KO_B)).toBeLessThan(0.45);
  });

  test('texts on unrelated topics are far (cosine distance > 0.8)', () => {
    const groups = [[PG_INDEX_A, PG_INDEX_B], [BREAD], [TLS], [OS_SCHED_KO, OS_SCHED_KO_B], [COOKING_KO]];
    for (const [i, g] of groups.entries()) {
      for (const other of groups.slice(i + 1)) {
        for (const a of g) for (const b of other) expect(distance(a, b)).toBeGreaterThan(0.8);
      }
    }
  });

  test('a related pair is closer than any pair across topics, and the same text is at distance 0', () => {
    const related = Math.max(distance(PG_INDEX_A, PG_INDEX_B), distance(OS_SCHED_KO, OS_SCHED_KO_B));
    const unrelated = Math.min(
      distance(PG_INDEX_A, BREAD),
      distance(PG_INDEX_B, TLS),
      distance(OS_SCHED_KO, COOKING_KO),
      distance(OS_SCHED_KO_B, PG_INDEX_A),
    );
    expect(related + 0.3).toBeLessThan(unrelated);
    expect(distance(TLS, TLS)).toBeCloseTo(0, 12);
  });

  test('order of words matters less than vocabulary: a shuffled text stays near its original', () => {
    const shuffled = PG_INDEX_A.split(/(?<=\.)\s+/).reverse().join(' ');
    expect(distance(PG_INDEX_A, shuffled)).toBeLessThan(0.15);
  });

  test('empty and whitespace-only text give the same deterministic unit vector', async () => {
    const [empty, blank, stop] = await ai.embed(['', ' \n\t ', 'the and of']);
    for (const v of [empty, blank, stop]) {
      expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
      expect(norm(v as number[])).toBe(1);
    }
    expect(empty?.[0]).toBe(1);
    expect(blank).toEqual(empty);
    expect(stop).toEqual(empty);
  });

  test('a 100 KB text embeds to a unit vector of 1536 finite numbers (its cost is bench section (f), not a timed test)', () => {
    const big = `${PG_INDEX_A}\n\n${BREAD}\n\n${OS_SCHED_KO}\n\n`.repeat(100).slice(0, 100_000);
    expect(big.length).toBe(100_000);
    const v = localEmbedding(big);
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(v.every((x) => Number.isFinite(x))).toBe(true);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });
});

describe('local analysis', () => {
  test.each(ALL)('%s: the answer satisfies CardAnalysisSchema', async (_name, content) => {
    const a = await ai.analyzeCard({ content });
    expect(CardAnalysisSchema.parse(a)).toEqual(a);
    expect(a.tags.length).toBeGreaterThanOrEqual(3);
    expect(a.tags.length).toBeLessThanOrEqual(8);
    expect(new Set(a.tags).size).toBe(a.tags.length);
    for (const t of a.tags) {
      expect(t).toBe(t.toLowerCase());
      expect(['the', 'and', 'with', 'of', '있다', '그리고', '하는']).not.toContain(t);
    }
    expect(a.title.length).toBeLessThanOrEqual(120);
    expect(a.summary.length).toBeLessThanOrEqual(600);
  });

  test.each(ALL)('%s: NFD input gives the NFC tags, title and embedding (decomposed marks stay inside words)', async (_name, content) => {
    const nfc = await ai.analyzeCard({ content: content.normalize('NFC') });
    const nfd = await ai.analyzeCard({ content: content.normalize('NFD') });
    expect(nfd.tags).toEqual(nfc.tags);
    expect(nfd.title).toBe(nfc.title);
    expect(cosineDistance(nfd.embedding, nfc.embedding)).toBeLessThan(1e-9);
  });

  test('a decomposed accented word is one tag, never split at its combining mark', async () => {
    const text = 'A naïve Bayes classifier is naïve about feature independence. Naïve models train fast; naïve priors help.';
    const tags = (await ai.analyzeCard({ content: text.normalize('NFD') })).tags;
    expect(tags).toContain('naïve'.normalize('NFC'));
    for (const t of tags) expect(t).toBe(t.normalize('NFC'));
    expect(tags).not.toContain('nai');
  });

  test('title is the first markdown heading', async () => {
    expect((await ai.analyzeCard({ content: PG_INDEX_A })).title).toBe('How PostgreSQL chooses an index');
    expect((await ai.analyzeCard({ content: TLS })).title).toBe('Rotating TLS certificates without downtime');
    expect((await ai.analyzeCard({ content: OS_SCHED_KO })).title).toBe('운영체제의 CPU 스케줄링');
    expect((await ai.analyzeCard({ content: 'Intro line.\n\n##Sloppy *heading*\nBody text.' })).title).toBe('Sloppy heading');
  });

  test('HTML character references in markdown are decoded in the title and the summary, never shown raw', async () => {
    const content = '# Fastify &middot; plugins &amp; hooks\n\nThe router&#39;s lookup is &lt;1 &micro;s per route.';
    const card = await ai.analyzeCard({ content });
    expect(card.title).toBe('Fastify · plugins & hooks');
    expect(JSON.stringify(card)).not.toMatch(/&(?:middot|amp|#39|lt|micro);/);
  });

  test('without a heading the title is the first sentence, clipped to 120 characters', async () => {
    expect((await ai.analyzeCard({ content: OS_SCHED_KO_B })).title).toBe(
      'CPU 스케줄러는 준비 큐에 있는 프로세스 중 다음에 실행할 프로세스를 고른다',
    );
    const long = `${'A remarkably long opening sentence about vector databases '.repeat(4)}ends here. Then more.`;
    const title = (await ai.analyzeCard({ content: long })).title;
    expect(title.length).toBeLessThanOrEqual(120);
    expect(title.endsWith('…')).toBe(true);
    expect(long.startsWith(title.slice(0, -1))).toBe(true);
  });

  test('a title given with the scrap wins over the text', async () => {
    expect((await ai.analyzeCard({ content: PG_INDEX_A, title: '  My  index notes ' })).title).toBe('My index notes');
  });

  test('summary is 2-3 sentences of the text, in their original order, without the heading', async () => {
    for (const content of [PG_INDEX_A, PG_INDEX_B, BREAD, OS_SCHED_KO, COOKING_KO]) {
      const { summary, title } = await ai.analyzeCard({ content });
      const parts = summary.split(/(?<=[.!?])\s+/);
      expect(parts.length).toBeGreaterThanOrEqual(2);
      expect(parts.length).toBeLessThanOrEqual(3);
      const source = flat(content);
      const positions = parts.map((p) => source.indexOf(p));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      if (content.startsWith('#')) expect(summary).not.toContain(title);
    }
  });

  test('summary favours the sentences carrying the text’s key terms', async () => {
    const { summary } = await ai.analyzeCard({ content: PG_INDEX_A });
    expect(summary).toContain('The query planner compares the estimated cost of a sequential scan with an index scan');
    expect(summary).not.toContain('each node returned');
  });

  test('summary of a long text stays within 600 characters', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i} explains how replication slots retain write-ahead log segments for logical decoding consumers.`).join(' ');
    const { summary } = await ai.analyzeCard({ content: long });
    expect(summary.length).toBeLessThanOrEqual(600);
    expect(summary.length).toBeGreaterThan(100);
  });

  test('tags name the topic, in English and Korean (particles stripped)', async () => {
    const tags = async (content: string) => (await ai.analyzeCard({ content })).tags;
    expect(await tags(PG_INDEX_A)).toEqual(expect.arrayContaining(['index', 'postgresql', 'planner']));
    expect(await tags(BREAD)).toEqual(expect.arrayContaining(['dough', 'flour', 'sourdough']));
    expect(await tags(TLS)).toEqual(expect.arrayContaining(['certificate']));
    expect(await tags(OS_SCHED_KO)).toEqual(expect.arrayContaining(['스케줄링', '프로세스', '운영체제']));
    expect(await tags(COOKING_KO)).toEqual(expect.arrayContaining(['된장', '육수']));
    expect(await tags(OS_SCHED_KO)).not.toContain('프로세스가');
  });

  test('category comes from the keyword lexicon; Other when nothing matches', async () => {
    const category = async (content: string) => (await ai.analyzeCard({ content })).category;
    expect(await category(PG_INDEX_A)).toBe('Data');
    expect(await category(PG_INDEX_B)).toBe('Data');
    expect(await category(TLS)).toBe('Security');
    expect(await category(OS_SCHED_KO)).toBe('Infrastructure');
    expect(await category(OS_SCHED_KO_B)).toBe('Infrastructure');
    expect(await category(BREAD)).toBe('Other');
    expect(await category(COOKING_KO)).toBe('Other');
    // One generic term ("customers", weight 0.5) is not enough evidence for a category.
    expect(await category('The customers at our bakery love the crust of this rye loaf.')).toBe('Other');
    expect(await category('Kubernetes restarted the pod after the liveness probe failed.')).toBe('Infrastructure');
  });

  test('empty content is a non-retryable BAD_REQUEST; an aborted signal is TIMEOUT', async () => {
    const empty = await rejection(ai.analyzeCard({ content: ' \n ' }));
    expect([empty.code, empty.retryable]).toEqual(['BAD_REQUEST', false]);
    const refine = await rejection(ai.refineScrap({ content: '' }));
    expect(refine.code).toBe('BAD_REQUEST');
    const aborted = await rejection(ai.analyzeCard({ content: BREAD }, AbortSignal.abort()));
    expect([aborted.code, aborted.retryable]).toEqual(['TIMEOUT', true]);
  });
});

describe('local refinement (SAN-8)', () => {
  const messy =
    '  #Title  \r\n\r\n\r\n\r\nSome text   \r\n* one\r\n+ two\r\n  * nested\r\n**bold** stays\r\n* * *\r\n' +
    '```sh\r\n* not a bullet\r\n#include <stdio.h>\r\n```\r\n\r\n\r\n##Sub\t\r\nend\r\n\r\n';

  test('normalises line endings, whitespace, blank lines, bullets and headings; leaves code alone', async () => {
    const { refinedContent } = await ai.refineScrap({ content: messy });
    expect(refinedContent).toBe(
      [
        '# Title',
        '',
        'Some text',
        '- one',
        '- two',
        '  - nested',
        '**bold** stays',
        '* * *',
        '```sh',
        '* not a bullet',
        '#include <stdio.h>',
        '```',
        '',
        '## Sub',
        'end',
      ].join('\n'),
    );
  });

  test.each(ALL)('%s: refinement is idempotent and keeps every word', (_name, content) => {
    const once = refineMarkdown(content.replace(/\n/g, '\r\n'));
    expect(once).not.toContain('\r');
    expect(refineMarkdown(once)).toBe(once);
    expect(flat(once)).toBe(flat(content));
  });

  test('never empty: falls back to the trimmed input', () => {
    expect(refineMarkdown('  *  \r\n')).toBe('*');
    expect(refineMarkdown('\n\n  x \n\n\n\n')).toBe('x');
  });
});
