/**
 * ST-5 local AI: memo-card extraction and study explanations on real texts (English and Korean):
 * definitions, "X is Y" statements, enumerations and numeric facts become cards with their sentences
 * as evidence; every card passes the card guards; answers are deterministic and schema-valid; the
 * threaded provider answers the same.
 */
import { AiProviderError, createLocalAiProvider, createThreadedLocalAiProvider } from '../../../src/ai';
import { createStudyAi } from '../../../src/ai/study';
import { explainStudyQuestionLocally } from '../../../src/ai/study/extractive/explanation';
import { extractMemoCardsLocally } from '../../../src/ai/study/extractive/memo-cards';
import { MemoCardBatchSchema, extractionPassages, type MemoCard, type MemoCardExtractionInput } from '../../../src/domain/study/cards';
import { guardMemoCards } from '../../../src/domain/study/guards';
import { memoCardKey } from '../../../src/domain/study/keys';
import { textSentences } from '../../../src/ai/extractive/key-terms';

const EN = `A partial index is an index built over a subset of a table's rows. PostgreSQL stores table and index data in pages of 8 kB. The planner can use a partial index only when the query's WHERE clause implies the index predicate. Index types in PostgreSQL include B-tree, hash, GiST, and GIN.

PostgreSQL offers these scan methods:
- sequential scan
- index scan
- bitmap heap scan

VACUUM reclaims storage occupied by dead tuples. Autovacuum starts a VACUUM when 20% of a table has changed.`;

const KO = `교착 상태란 둘 이상의 프로세스가 서로가 가진 자원을 기다리며 무한히 멈춰 있는 상태를 말한다. 라운드 로빈 스케줄링은 각 프로세스에 10ms의 시간 할당량을 준다. 운영체제의 스케줄러는 준비 큐에서 다음에 실행할 프로세스를 고른다.

교착 상태의 네 가지 조건은 다음과 같다:
- 상호 배제
- 점유와 대기
- 비선점
- 순환 대기`;

const input = (explanation: string, extra: Partial<MemoCardExtractionInput> = {}): MemoCardExtractionInput => ({ question: 'Explain the topic.', explanation, ...extra });
const basics = (cards: MemoCard[]) => cards.flatMap((c) => (c.kind === 'basic' ? [{ cue: c.cue, answer: c.answer }] : []));
const clozes = (cards: MemoCard[]) => cards.flatMap((c) => (c.kind === 'cloze' ? [c.clozeText] : []));

describe('extractMemoCardsLocally', () => {
  test('English: definitions, enumerations and numeric facts become cards with their sentences as evidence', () => {
    const { cards } = extractMemoCardsLocally(input(EN));
    expect(basics(cards)).toEqual(
      expect.arrayContaining([
        { cue: 'What is a partial index?', answer: "an index built over a subset of a table's rows" },
        { cue: 'PostgreSQL offers these scan methods: name them all.', answer: 'sequential scan; index scan; bitmap heap scan' },
        { cue: 'Index types in PostgreSQL include …?', answer: 'B-tree; hash; GiST; GIN' },
      ]),
    );
    expect(clozes(cards)).toEqual(
      expect.arrayContaining(['PostgreSQL stores table and index data in pages of {{c1::8 kB}}.', 'Autovacuum starts a VACUUM when {{c1::20%}} of a table has changed.']),
    );
    const definition = cards.find((c) => c.kind === 'basic' && c.cue === 'What is a partial index?');
    expect(definition?.evidence).toEqual([{ ref: 'explanation', quote: "A partial index is an index built over a subset of a table's rows." }]);
  });

  test('Korean: 정의, 열거, 수치 사실', () => {
    const { cards } = extractMemoCardsLocally(input(KO, { question: '교착 상태를 설명하라.' }));
    expect(basics(cards)).toEqual(
      expect.arrayContaining([
        { cue: '교착 상태란 무엇인가?', answer: '둘 이상의 프로세스가 서로가 가진 자원을 기다리며 무한히 멈춰 있는 상태' },
        { cue: '교착 상태의 네 가지 조건: 모두 쓰시오.', answer: '상호 배제, 점유와 대기, 비선점, 순환 대기' },
      ]),
    );
    expect(clozes(cards)).toContain('라운드 로빈 스케줄링은 각 프로세스에 {{c1::10ms}}의 시간 할당량을 준다.');
    expect(clozes(cards)).toContain('운영체제의 {{c1::스케줄러}}는 준비 큐에서 다음에 실행할 프로세스를 고른다.');
  });

  test('every card is schema-valid, passes the guards, and the limit holds', () => {
    for (const text of [EN, KO]) {
      for (const maxCards of [1, 3, 40]) {
        const i = input(text, { maxCards });
        const batch = extractMemoCardsLocally(i);
        expect(MemoCardBatchSchema.parse(batch)).toEqual(batch);
        expect(batch.cards.length).toBeGreaterThan(0);
        expect(batch.cards.length).toBeLessThanOrEqual(maxCards);
        const verdict = guardMemoCards({ cards: batch.cards, passages: extractionPassages(i) });
        expect(verdict.dropped).toEqual([]);
      }
    }
  });

  test('numbers inside names are no numeric facts; participles and adjectives are no cloze answers', () => {
    const { cards } = extractMemoCardsLocally(input('SHA-256 digests are computed by the nice(2) helper of HTTP/2 servers in ES2015 code. Pino is built for speed and is capable of logging.'));
    for (const text of clozes(cards)) expect(text).not.toMatch(/\{\{c1::(?:256|2|2015|built|capable)\}\}/);
  });

  test('deterministic, and an explanation without facts gives no cards rather than junk', async () => {
    expect(extractMemoCardsLocally(input(EN))).toEqual(extractMemoCardsLocally(input(EN)));
    expect(extractMemoCardsLocally(input('Hmm.')).cards).toEqual([]);
    await expect(createStudyAi(createLocalAiProvider()).extractMemoCards(input('   '))).rejects.toMatchObject({ code: 'BAD_REQUEST', retryable: false });
  });
});

/** Prose whose sentences share key terms, so a ranking over the whole text would tie them together. */
const PROSE = `The planner estimates the cost of every candidate plan from table statistics. Statistics are gathered by ANALYZE and stored in the catalog. A stale statistic makes the planner misjudge how many rows a filter keeps. The executor then runs the cheapest plan and streams rows to the client. Parallel workers split a sequential scan across several processes. The planner refuses parallel plans inside a serializable transaction.`;

describe('card identity follows its own sentence', () => {
  /** `text` with `sentence` edited (a word changed and a clause added). */
  const edit = (text: string, sentence: string): string => {
    const korean = /[\uac00-\ud7a3]/.test(sentence);
    const changed = korean ? `${sentence.replace(/[.。]$/u, '')} 그리고 이 문장은 바뀌었다.` : `${sentence.replace(/\.$/, '')}, which the manual explains in detail.`;
    return text.replace(sentence, changed);
  };

  test.each([
    ['English prose', PROSE, 'How does the planner choose a plan?'],
    ['English facts', EN, 'Explain the topic.'],
    ['Korean', KO, '교착 상태를 설명하라.'],
  ])('%s: editing each sentence in turn keeps the other sentences’ cards, key and content', (_name, text, question) => {
    const before = extractMemoCardsLocally(input(text, { question, maxCards: 40 })).cards;
    expect(before.length).toBeGreaterThan(2);
    const sentences = textSentences(text);
    for (const sentence of sentences) {
      const after = extractMemoCardsLocally(input(edit(text, sentence), { question, maxCards: 40 })).cards;
      const afterKeys = new Map(after.map((c) => [memoCardKey(c), c]));
      const others = before.filter((c) => c.evidence.every((e) => !e.quote.includes(sentence) && !sentence.includes(e.quote)));
      for (const card of others) expect({ edited: sentence, card: afterKeys.get(memoCardKey(card)) }).toEqual({ edited: sentence, card });
    }
  });
});

describe('explainStudyQuestionLocally', () => {
  test('quotes the sentences of the material that match the question, in their order', () => {
    const { explanation } = explainStudyQuestionLocally({
      question: 'When can the planner use a partial index?',
      userAnswer: 'Always.',
      related: [{ ref: 'knowledge_card:1', text: EN }, { ref: 'knowledge_card:2', text: 'Sourdough bread needs a starter.' }],
    });
    expect(explanation).toContain("A partial index is an index built over a subset of a table's rows.");
    expect(explanation).toContain("The planner can use a partial index only when the query's WHERE clause implies the index predicate.");
    expect(explanation).not.toContain('Sourdough');
    expect(explanation.indexOf('A partial index is')).toBeLessThan(explanation.indexOf('The planner can use'));
    // the explanation is itself material for cards
    expect(extractMemoCardsLocally(input(explanation)).cards.length).toBeGreaterThan(0);
  });

  test('falls back to the user’s answer, then to a message in the question’s language', async () => {
    expect(explainStudyQuestionLocally({ question: '교착 상태란?', userAnswer: '교착 상태는 프로세스들이 서로 자원을 기다리는 상태이다.' }).explanation).toBe(
      '교착 상태는 프로세스들이 서로 자원을 기다리는 상태이다.',
    );
    expect(explainStudyQuestionLocally({ question: '교착 상태란?' }).explanation).toMatch(/자료가 아직 없습니다/);
    const none = explainStudyQuestionLocally({ question: 'What is MVCC?' }).explanation;
    expect(none).toMatch(/None of your material/);
    // the "no material" explanation is no material for cards: no card is made of it
    expect(extractMemoCardsLocally(input(none)).cards).toEqual([]);
    expect(extractMemoCardsLocally(input(explainStudyQuestionLocally({ question: '교착 상태란?' }).explanation)).cards).toEqual([]);
    const err = await createStudyAi(createLocalAiProvider()).explainStudyQuestion({ question: ' ' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AiProviderError);
    expect(err).toMatchObject({ code: 'BAD_REQUEST', retryable: false });
  });
});

test('the threaded local provider answers exactly as the in-process one', async () => {
  const pool = createThreadedLocalAiProvider({ threads: 1 });
  const threaded = createStudyAi(pool);
  try {
    const local = createStudyAi(createLocalAiProvider());
    expect(await threaded.extractMemoCards(input(KO))).toEqual(await local.extractMemoCards(input(KO)));
    const q = { question: 'What is a partial index?', related: [{ ref: 'r', text: EN }] };
    expect(await threaded.explainStudyQuestion(q)).toEqual(await local.explainStudyQuestion(q));
    await expect(threaded.extractMemoCards(input(''))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  } finally {
    await pool.close();
  }
});

test('a large explanation with markup-like noise is handled and every card it gives is still valid', () => {
  const noise = `${'{{c1::x}} }} {{ '.repeat(500)}\n\n${EN}\n\n${'1,2,3 '.repeat(2_000)}\n\n${KO}`;
  const i = input(noise, { maxCards: 40 });
  const batch = extractMemoCardsLocally(i);
  expect(MemoCardBatchSchema.parse(batch)).toEqual(batch);
  expect(guardMemoCards({ cards: batch.cards, passages: extractionPassages(i) }).dropped).toEqual([]);
  expect(basics(batch.cards)).toContainEqual({ cue: 'What is a partial index?', answer: "an index built over a subset of a table's rows" });
});
