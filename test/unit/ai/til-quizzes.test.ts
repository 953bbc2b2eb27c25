/** SAN-9, SAN-11: TILs and recall quizzes of the scraps port over the offline `local` provider on real English and Korean cards. */
import { AiProviderError, createLocalAiProvider, localEmbedding } from '../../../src/ai';
import { negateEnglish, negateKorean } from '../../../src/ai/extractive/negation';
import { createScrapsAi } from '../../../src/ai/scraps';
import { TilResultSchema, type SourceCard } from '../../../src/ai/scraps/answers';
import { analyzeScrapLocally } from '../../../src/ai/scraps/extractive/analysis';
import { QuizSchema, type Quiz, type QuizTypeName } from '../../../src/domain/scraps/quizzes';
import { BREAD, COOKING_KO, OS_SCHED_KO, OS_SCHED_KO_B, PG_INDEX_A, PG_INDEX_B, TLS } from './corpus';

const CORPUS = { PG_INDEX_A, PG_INDEX_B, BREAD, TLS, OS_SCHED_KO, OS_SCHED_KO_B, COOKING_KO };
type Name = keyof typeof CORPUS;

/** A card as the TIL job builds it: the scrap's content with the title and summary of its analysis. */
function card(name: Name): SourceCard {
  const content = CORPUS[name];
  const { title, summary } = analyzeScrapLocally({ content });
  const n = Object.keys(CORPUS).indexOf(name) + 1;
  return { cardId: `5a1e0000-0000-4000-8000-${String(n).padStart(12, '0')}`, title, summary, content };
}
const cards = (...names: Name[]) => names.map(card);
const ALL_CARDS = cards(...(Object.keys(CORPUS) as Name[]));
const BOTH: QuizTypeName[] = ['OX', 'SHORT_ANSWER'];

const ai = createScrapsAi(createLocalAiProvider());
const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
const dist = (a: number[], b: number[]) => 1 - a.reduce((s, x, i) => s + x * (b[i] as number), 0);
const distTo = (v: number[], name: Name) => dist(v, localEmbedding(CORPUS[name]));

async function rejection(p: Promise<unknown>): Promise<AiProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiProviderError);
  return err as AiProviderError;
}

/** True when `statement` is the negation of `source`, allowing the statement's trimmed leading connective. */
const isNegationOf = (statement: string, source: string) =>
  [negateEnglish(source), negateKorean(source)].some((n) => n !== undefined && n.toLowerCase().endsWith(statement.toLowerCase()));

/** Splits a TIL into its `## ` sections (heading → body). */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const [heading = '', ...rest] = part.split('\n');
    out.set(heading, rest.join('\n').trim());
  }
  return out;
}

/** The source sentence an explanation quotes: `… says: "<sentence>"`, optionally followed by ` (<what changed>)`. */
const quoted = (explanation: string) => /(?:says|states|원문): "(.*)"(?: \(|$)/.exec(explanation)?.[1] ?? '(no quote)';

describe('local TIL (SAN-9)', () => {
  test('one card: title "TIL <date>: <card title>", valid result, embedding of the markdown', async () => {
    const til = await ai.generateTil({ targetDate: '2026-11-30', cards: cards('PG_INDEX_A') });
    expect(TilResultSchema.parse(til)).toEqual(til);
    expect(til.title).toBe('TIL 2026-11-30: How PostgreSQL chooses an index');
    expect(til.tilMarkdown.startsWith(`# ${til.title}\n\n`)).toBe(true);
    expect(til.embedding).toEqual(localEmbedding(til.tilMarkdown));
  });

  test('several cards: title from top keywords, overview, one section per card with summary and 2-4 key sentences, sources', async () => {
    const input = cards('PG_INDEX_A', 'TLS', 'BREAD');
    const { title, tilMarkdown } = await ai.generateTil({ targetDate: '2026-11-30', cards: input });
    expect(title).toBe('TIL 2026-11-30: index, certificates, sourdough');

    const [heading, overview] = tilMarkdown.split('\n\n');
    expect(heading).toBe(`# ${title}`);
    expect(overview).toMatch(/^3 cards saved on 2026-11-30, about index, certificates, sourdough/);

    const secs = sections(tilMarkdown);
    expect([...secs.keys()]).toEqual([...input.map((c) => c.title), 'Sources']);
    for (const c of input) {
      const body = secs.get(c.title) ?? '';
      expect(body.startsWith(c.summary)).toBe(true);
      const bullets = body.split('\n').filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
      expect(bullets.length).toBeGreaterThanOrEqual(2);
      expect(bullets.length).toBeLessThanOrEqual(4);
      for (const b of bullets) expect(flat(c.content)).toContain(b);
      expect(bullets.filter((b) => !c.summary.includes(b)).length).toBeGreaterThanOrEqual(1);
    }
    expect(secs.get('Sources')).toBe(input.map((c) => `- ${c.title}`).join('\n'));
  });

  test('Korean cards: Korean overview, Korean sections, bullets taken from the content', async () => {
    const input = cards('OS_SCHED_KO', 'COOKING_KO');
    const { title, tilMarkdown } = await ai.generateTil({ targetDate: '2026-12-01', cards: input });
    expect(title).toBe('TIL 2026-12-01: 스케줄링, 된장찌개, 운영체제');
    expect(tilMarkdown).toContain('2026-12-01에 저장한 카드 2개의 주제: 스케줄링, 된장찌개, 운영체제');
    const secs = sections(tilMarkdown);
    expect([...secs.keys()]).toEqual(['운영체제의 CPU 스케줄링', '된장찌개 끓이는 법', 'Sources']);
    expect(secs.get('운영체제의 CPU 스케줄링')).toContain('- 우선순위 스케줄링은 우선순위가 높은 프로세스를 먼저 실행하지만 기아 현상이 생길 수 있어 에이징 기법으로 보완한다.');
    expect(secs.get('된장찌개 끓이는 법')).toContain('- 마지막으로 대파를 송송 썰어 올리고 불을 끈다.');
  });

  test('a one-topic TIL recalls the other card on that topic within the 0.5 threshold; unrelated cards stay far', async () => {
    for (const [own, sibling] of [['PG_INDEX_A', 'PG_INDEX_B'], ['OS_SCHED_KO', 'OS_SCHED_KO_B']] as const) {
      const { embedding } = await ai.generateTil({ targetDate: '2026-11-30', cards: cards(own) });
      expect(distTo(embedding, own)).toBeLessThan(0.1);
      expect(distTo(embedding, sibling)).toBeLessThan(0.5);
      for (const other of ['BREAD', 'TLS', 'COOKING_KO'] as const) expect(distTo(embedding, other)).toBeGreaterThan(0.85);
    }
  });

  test('a mixed TIL is near each of its cards, and cards sharing their vocabulary rank before unrelated ones', async () => {
    const { embedding } = await ai.generateTil({ targetDate: '2026-11-30', cards: cards('PG_INDEX_A', 'OS_SCHED_KO') });
    expect(distTo(embedding, 'PG_INDEX_A')).toBeLessThan(0.45);
    expect(distTo(embedding, 'OS_SCHED_KO')).toBeLessThan(0.45);
    const recall = (['PG_INDEX_B', 'OS_SCHED_KO_B', 'BREAD', 'TLS', 'COOKING_KO'] as const)
      .map((n) => ({ n, d: distTo(embedding, n) }))
      .sort((a, b) => a.d - b.d);
    expect(recall.slice(0, 2).map((r) => r.n).sort()).toEqual(['OS_SCHED_KO_B', 'PG_INDEX_B']);
    expect((recall[1]?.d ?? 1) + 0.2).toBeLessThan(recall[2]?.d ?? 0);
  });

  test('deterministic across calls and provider instances', async () => {
    const input = { targetDate: '2026-11-30', cards: cards('TLS', 'OS_SCHED_KO_B') };
    expect(await createScrapsAi(createLocalAiProvider()).generateTil(input)).toEqual(await ai.generateTil(input));
  });

  test('a long title is clipped to 120 characters; a card with only a title still gets a section', async () => {
    const long = { ...card('BREAD'), title: 'A very long card title about sourdough fermentation and crumb structure '.repeat(3) };
    const bare = { cardId: '5a1e0000-0000-4000-8000-0000000000aa', title: 'Bare card', summary: '', content: '' };
    const til = await ai.generateTil({ targetDate: '2026-11-30', cards: [long] });
    expect(til.title.length).toBeLessThanOrEqual(120);
    expect(til.title.endsWith('…')).toBe(true);
    const both = await ai.generateTil({ targetDate: '2026-11-30', cards: [card('TLS'), bare] });
    expect(sections(both.tilMarkdown).has('Bare card')).toBe(true);
  });

  test('no cards is a non-retryable BAD_REQUEST; an aborted signal is TIMEOUT', async () => {
    const none = await rejection(ai.generateTil({ targetDate: '2026-11-30', cards: [] }));
    expect([none.code, none.retryable]).toEqual(['BAD_REQUEST', false]);
    const aborted = await rejection(ai.generateTil({ targetDate: '2026-11-30', cards: cards('TLS') }, AbortSignal.abort()));
    expect([aborted.code, aborted.retryable]).toEqual(['TIMEOUT', true]);
  });
});

describe('local quizzes (SAN-11)', () => {
  let quizzes: Quiz[];
  beforeAll(async () => {
    quizzes = await ai.generateQuizzes({ cards: ALL_CARDS, types: BOTH });
  });
  const byCard = (name: Name) => quizzes.filter((q) => q.sourceCardId === card(name).cardId);
  const contentOf = (q: Quiz) => flat(ALL_CARDS.find((c) => c.cardId === q.sourceCardId)?.content ?? '');

  test('every quiz is valid, cites an input card, and each card gets 1-2 quizzes of each type', () => {
    const ids = new Set(ALL_CARDS.map((c) => c.cardId));
    for (const q of quizzes) {
      expect(QuizSchema.parse(q)).toEqual(q);
      expect(ids.has(q.sourceCardId)).toBe(true);
    }
    for (const name of Object.keys(CORPUS) as Name[]) {
      for (const type of BOTH) {
        const n = byCard(name).filter((q) => q.type === type).length;
        expect([name, type, n >= 1 && n <= 2]).toEqual([name, type, true]);
      }
    }
  });

  test('OX: answers are O or X, both occur; O is the source sentence, X a changed one; the explanation quotes the source', () => {
    const ox = quizzes.filter((q) => q.type === 'OX');
    expect(new Set(ox.map((q) => q.answer))).toEqual(new Set(['O', 'X']));
    for (const q of ox) {
      const source = quoted(q.explanation);
      expect(contentOf(q)).toContain(source);
      if (q.answer === 'O') {
        expect(source.toLowerCase()).toContain(q.question.toLowerCase());
      } else {
        expect(q.question).not.toBe(source);
        for (const c of ALL_CARDS) expect(flat(c.content)).not.toContain(q.question);
      }
    }
  });

  test('X statements swap a key term for one of another card, or negate the sentence', () => {
    const falsified = quizzes.filter((q) => q.answer === 'X');
    expect(falsified.length).toBeGreaterThanOrEqual(4);
    for (const q of falsified) {
      const source = quoted(q.explanation);
      const negated = isNegationOf(q.question, source);
      const swapped = /\((?:"[^"]+", not "[^"]+"|'[^']+'이\(가\) 아니라 '[^']+')\)$/.test(q.explanation);
      expect([q.question, negated || swapped]).toEqual([q.question, true]);
    }
  });

  test('SHORT_ANSWER: a cloze of a source sentence whose answer is a key term absent from the question', () => {
    const stop = ['the', 'and', 'with', 'a', 'of', 'is', '있다', '그리고', '하는', '것'];
    for (const q of quizzes.filter((x) => x.type === 'SHORT_ANSWER')) {
      expect(q.question).toContain('____');
      expect(q.question.toLowerCase()).not.toContain(q.answer.toLowerCase());
      expect(contentOf(q).toLowerCase()).toContain(q.question.replaceAll('____', q.answer).toLowerCase());
      expect(stop).not.toContain(q.answer.toLowerCase());
      expect(q.answer.length).toBeGreaterThanOrEqual(2);
      expect(q.explanation).toContain(quoted(q.explanation));
    }
  });

  test('cloze answers are the cards’ topic terms, in English and Korean (particles stay in the question)', () => {
    const answers = (name: Name) => byCard(name).filter((q) => q.type === 'SHORT_ANSWER').map((q) => q.answer);
    expect(answers('PG_INDEX_A')).toEqual(['index', 'scan']);
    expect(answers('BREAD')).toEqual(['dough', 'levain']);
    expect(answers('TLS')).toEqual(['certificates', 'authentication']);
    expect(answers('OS_SCHED_KO')).toEqual(['스케줄링', '프로세스']);
    expect(answers('COOKING_KO')).toEqual(['육수', '다시마']);
    const koCloze = byCard('COOKING_KO').find((q) => q.answer === '다시마');
    expect(koCloze?.question).toBe('냄비에 멸치와 ____를 넣고 물을 부어 15분 정도 끓여 육수를 만든다.');
  });

  test('a Korean term swap keeps the particle grammatical and takes the term from another card', async () => {
    const qs = await ai.generateQuizzes({ cards: cards('COOKING_KO', 'OS_SCHED_KO'), types: ['OX'] });
    const swaps = qs.filter((q) => q.answer === 'X' && /이\(가\) 아니라/.test(q.explanation));
    expect(swaps.length).toBeGreaterThanOrEqual(1);
    for (const q of swaps) {
      const [, borrowed = '-', original = '-'] = /'([^']+)'이\(가\) 아니라 '([^']+)'/.exec(q.explanation) ?? [];
      const [own, other] = q.sourceCardId === card('COOKING_KO').cardId ? [COOKING_KO, OS_SCHED_KO] : [OS_SCHED_KO, COOKING_KO];
      expect(flat(other)).toContain(borrowed);
      expect(flat(own)).not.toContain(borrowed);
      expect(quoted(q.explanation)).toContain(original);
      expect(q.question).toContain(borrowed);
      expect(q.question).not.toMatch(/[가-힣](?:을를|를을|은는|는은)/);
    }
  });

  test('swapped and cloze terms are noun-like: words used as verbs (X the, to X) are never chosen', async () => {
    const qs = await ai.generateQuizzes({ cards: ALL_CARDS, types: BOTH });
    const verbs = ['compares', 'prefers', 'chooses', 'supports', 'uncover', 'issue', 'limit', 'creates'];
    for (const q of qs) {
      expect(verbs).not.toContain(q.answer.toLowerCase());
      const borrowed = /\("[^"]+", not "([^"]+)"\)$/.exec(q.explanation)?.[1];
      if (borrowed) expect(verbs).not.toContain(borrowed.toLowerCase());
    }
  });

  test('one card alone: X statements are negations (no other card to borrow a term from)', async () => {
    for (const name of ['PG_INDEX_B', 'OS_SCHED_KO_B', 'COOKING_KO'] as const) {
      const qs = await ai.generateQuizzes({ cards: cards(name), types: ['OX'] });
      expect(qs.length).toBeGreaterThanOrEqual(1);
      for (const q of qs.filter((x) => x.answer === 'X')) {
        expect([q.question, isNegationOf(q.question, quoted(q.explanation))]).toEqual([q.question, true]);
      }
    }
  });

  test('OX statements prefer sentences the cloze questions did not use', () => {
    for (const name of ['PG_INDEX_A', 'BREAD', 'OS_SCHED_KO_B', 'COOKING_KO'] as const) {
      const qs = byCard(name);
      const clozeSources = new Set(qs.filter((q) => q.type === 'SHORT_ANSWER').map((q) => quoted(q.explanation)));
      for (const q of qs.filter((x) => x.type === 'OX')) expect(clozeSources.has(quoted(q.explanation))).toBe(false);
    }
  });

  test('only the requested types are generated', async () => {
    const input = cards('TLS', 'OS_SCHED_KO');
    expect(new Set((await ai.generateQuizzes({ cards: input, types: ['OX'] })).map((q) => q.type))).toEqual(new Set(['OX']));
    expect(new Set((await ai.generateQuizzes({ cards: input, types: ['SHORT_ANSWER'] })).map((q) => q.type))).toEqual(new Set(['SHORT_ANSWER']));
  });

  test('deterministic across calls and provider instances', async () => {
    const again = await createScrapsAi(createLocalAiProvider()).generateQuizzes({ cards: ALL_CARDS, types: BOTH });
    expect(again).toEqual(quizzes);
  });

  test('Hangul sentences split on 다. even without a following space', async () => {
    const glued = {
      cardId: '5a1e0000-0000-4000-8000-0000000000bb',
      title: '해시 인덱스',
      summary: '',
      content: '해시 인덱스는 등호 비교 검색에 빠르다.해시 인덱스는 범위 검색을 지원하지 않는다.B-tree 인덱스는 정렬된 순서로 키를 저장한다.',
    };
    const qs = await ai.generateQuizzes({ cards: [glued], types: BOTH });
    expect(qs.length).toBeGreaterThanOrEqual(2);
    for (const q of qs) expect(q.question.replace(/\.$/, '')).not.toContain('다.');
  });

  test('awkward markdown keeps every invariant: code, links, regex characters, case variants, questions, bullets', async () => {
    const awkward = [
      '```ts\nconst index = 1;\n```\n\nThe Index is great. An index (B-tree) helps; INDEX scans use the index. C++ and C# are languages [docs](http://x.y/z?q=1).',
      '- bullet one without period\n- second bullet\n\nSee https://example.com/a.b for the (weird) regex chars $^*+?.',
      'Kubernetes schedules pods onto nodes. The kubelet runs on every node. A pod is the smallest deployable unit in Kubernetes.',
      '리액트는 컴포넌트 기반 UI 라이브러리다.상태가 바뀌면 리액트는 가상 DOM을 비교한다. useEffect 훅은 부수 효과를 처리한다!',
      'Why does this happen? Nobody knows?',
      `${'Caching layers and invalidation strategies '.repeat(20)}.`,
    ].map((content, i) => ({ cardId: `5a1e0000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`, title: `Card ${i}`, summary: '', content }));
    const qs = await ai.generateQuizzes({ cards: awkward, types: BOTH });
    expect(qs.length).toBeGreaterThanOrEqual(6);
    for (const q of qs) {
      expect(QuizSchema.parse(q)).toEqual(q);
      if (q.type === 'SHORT_ANSWER') expect(q.question.toLowerCase()).not.toContain(q.answer.toLowerCase());
      expect(q.question).not.toMatch(/\?$/);
    }
    const indexCloze = qs.find((q) => q.type === 'SHORT_ANSWER' && q.answer.toLowerCase() === 'index');
    expect(indexCloze?.question).toBe('An ____ (B-tree) helps; ____ scans use the ____.');
    expect(qs.map((q) => q.question)).toContain('useEffect 훅은 부수 효과를 처리한다!');
    const til = await ai.generateTil({ targetDate: '2026-11-30', cards: awkward });
    expect(TilResultSchema.parse(til)).toEqual(til);
    expect([...sections(til.tilMarkdown).keys()]).toEqual([...awkward.map((c) => c.title), 'Sources']);
  });

  test('cards without usable sentences give no quizzes and no error; bad input is BAD_REQUEST', async () => {
    const empty = { cardId: '5a1e0000-0000-4000-8000-0000000000cc', title: 'Empty', summary: '', content: '' };
    expect(await ai.generateQuizzes({ cards: [empty], types: BOTH })).toEqual([]);
    for (const input of [
      { cards: [], types: BOTH },
      { cards: cards('TLS'), types: [] },
      { cards: [{ ...card('TLS'), cardId: 'card-1' }], types: BOTH },
    ]) {
      const e = await rejection(ai.generateQuizzes(input));
      expect([e.code, e.retryable]).toEqual(['BAD_REQUEST', false]);
    }
    expect((await rejection(ai.generateQuizzes({ cards: cards('TLS'), types: BOTH }, AbortSignal.abort()))).code).toBe('TIMEOUT');
  });
});

describe('statement negation', () => {
  test.each([
    ['The planner is smart.', 'The planner is not smart.'],
    ['The index was not used.', 'The index was used.'],
    ['Postgres cannot skip it.', 'Postgres can skip it.'],
    ['You can bake it.', 'You cannot bake it.'],
    ['It has been removed.', 'It has not been removed.'],
  ])('English: %s → %s', (from, to) => expect(negateEnglish(from)).toBe(to));

  test.each([
    ['운영체제는 스케줄링 정책을 사용한다.', '운영체제는 스케줄링 정책을 사용하지 않는다.'],
    ['CPU 스케줄러는 다음 프로세스를 고른다.', 'CPU 스케줄러는 다음 프로세스를 고르지 않는다.'],
    ['기아 현상이 생길 수 있다.', '기아 현상이 생길 수 없다.'],
    ['이것은 해시 테이블이다.', '이것은 해시 테이블이 아니다.'],
    ['이것은 B-tree 인덱스이다.', '이것은 B-tree 인덱스가 아니다.'],
    ['그는 책을 읽는다.', '그는 책을 읽지 않는다.'],
    ['커널을 컴파일했다.', '커널을 컴파일하지 않았다.'],
    ['인덱스를 만들었습니다.', '인덱스를 만들지 않았습니다.'],
    ['쿼리를 실행합니다.', '쿼리를 실행하지 않습니다.'],
    ['육수를 만든다.', '육수를 만들지 않는다.'],
    ['캐시는 매우 빠르다.', '캐시는 매우 빠르지 않다.'],
  ])('Korean: %s → %s', (from, to) => expect(negateKorean(from)).toBe(to));

  test('no pattern, no negation', () => {
    expect(negateEnglish('Run EXPLAIN ANALYZE to see the plan.')).toBeUndefined();
    expect(negateKorean('실행되지 않는다.')).toBeUndefined();
  });
});
