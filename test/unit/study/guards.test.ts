/**
 * ST-5 card guards on real texts (English and Korean): each guard with passing and failing cards,
 * the normalised key and dedup within the batch and against live keys, the cloze syntax, drop counts
 * and the needs_review verdict.
 */
import { MemoCardBatchSchema, MemoCardSchema, clozeFront, extractionPassages, parseCloze, type MemoCard, type StudySourcePassage } from '../../../src/domain/study/cards';
import { answerLeak, batchVerdict, DROP_REASONS, guardMemoCards } from '../../../src/domain/study/guards';
import { memoCardKey } from '../../../src/domain/study/keys';

const EN = `A partial index is an index built over a subset of a table's rows, defined by a conditional expression called the predicate of the partial index. PostgreSQL stores table and index data in pages of 8 kB. Autovacuum starts a VACUUM when the number of dead tuples exceeds 50 rows plus 20% of the table. The planner can use a partial index only when the query's WHERE clause implies the index predicate.`;
const KO = `교착 상태란 둘 이상의 프로세스가 서로가 가진 자원을 기다리며 무한히 멈춰 있는 상태를 말한다. 교착 상태가 발생하려면 상호 배제, 점유와 대기, 비선점, 순환 대기의 네 가지 조건이 모두 성립해야 한다. 라운드 로빈 스케줄링은 각 프로세스에 보통 10~100ms의 시간 할당량을 준다. 리눅스의 CFS는 2007년 커널 2.6.23에서 도입되었다.`;

const passages: StudySourcePassage[] = extractionPassages({ question: 'What is a partial index?', explanation: EN, related: [{ ref: 'study_question:7', text: KO }] });
const ev = (quote: string, ref = 'explanation') => [{ ref, quote }];
const basic = (cue: string, answer: string, quote: string, ref?: string): MemoCard => ({ kind: 'basic', cue, answer, evidence: ev(quote, ref) });
const cloze = (clozeText: string, quote: string, ref?: string): MemoCard => ({ kind: 'cloze', clozeText, evidence: ev(quote, ref) });

const reasonOf = (card: MemoCard, liveKeys: string[] = []) => {
  const out = guardMemoCards({ cards: [card], passages, liveKeys });
  return out.dropped[0]?.reason ?? 'kept';
};

describe('cloze syntax', () => {
  test('parses Anki deletions with group numbers and hints', () => {
    const d = parseCloze('{{c1::VACUUM}} reclaims space held by {{c2::dead tuples::rows}}.');
    expect(d?.map(({ n, answer, hint }) => ({ n, answer, hint }))).toEqual([
      { n: 1, answer: 'VACUUM', hint: undefined },
      { n: 2, answer: 'dead tuples', hint: 'rows' },
    ]);
    expect(clozeFront('{{c1::VACUUM}} reclaims space held by {{c2::dead tuples::rows}}.', d ?? [], 2)).toBe('VACUUM reclaims space held by [rows].');
  });

  test('rejects texts without a deletion, with blank answers or stray braces', () => {
    for (const bad of ['no deletion here', '{{c1::}} is blank', '{{c0::zero}} group', '{{x::y}} wrong', 'open {{c1::never closed', 'stray }} close {{c1::x}}', '{{c1::a {{c2::b}} }}']) {
      expect(parseCloze(bad)).toBeUndefined();
      expect(MemoCardSchema.safeParse({ kind: 'cloze', clozeText: bad, evidence: ev('x') }).success).toBe(false);
    }
  });

  test('the batch schema bounds the cards and needs evidence', () => {
    expect(MemoCardBatchSchema.safeParse({ cards: [{ kind: 'basic', cue: 'q', answer: 'a', evidence: [] }] }).success).toBe(false);
    expect(MemoCardBatchSchema.safeParse({ cards: [{ kind: 'essay', cue: 'q', answer: 'a', evidence: ev('x') }] }).success).toBe(false);
    expect(MemoCardBatchSchema.safeParse({ cards: [] }).success).toBe(true);
  });
});

describe('evidence guard', () => {
  test('a quote found in its passage passes, whatever its case, spacing and punctuation', () => {
    expect(reasonOf(basic('What is a partial index?', 'an index built over a subset of the rows of a table', "a PARTIAL index is an index built over a subset of a table’s rows"))).toBe('kept');
    expect(reasonOf(basic('What is the predicate of a partial index?', 'a conditional expression', "defined by a conditional  expression called the predicate"))).toBe('kept');
    expect(reasonOf(basic('교착 상태란?', '서로의 자원을 기다리며 멈춘 상태', '교착 상태란 둘 이상의 프로세스가', 'study_question:7'))).toBe('kept');
  });

  test('an invented quote, or one citing an unknown passage, is dropped', () => {
    expect(reasonOf(basic('What does VACUUM do?', 'It reclaims space', 'VACUUM reclaims storage occupied by dead tuples.'))).toBe('evidence_not_in_source');
    expect(reasonOf(basic('교착 상태란?', '서로의 자원을 기다리며 멈춘 상태', '교착 상태란 둘 이상의 프로세스가', 'explanation'))).toBe('evidence_not_in_source');
    const out = guardMemoCards({ cards: [basic('q?', 'a', 'pages of 8 kB', 'nowhere')], passages });
    expect(out.dropped[0]).toMatchObject({ reason: 'evidence_not_in_source', detail: 'unknown passage nowhere' });
  });
});

describe('number guard', () => {
  test('numbers present in the evidence pass, in other spellings too', () => {
    expect(reasonOf(cloze('PostgreSQL stores data in pages of {{c1::8 kB}}.', 'PostgreSQL stores table and index data in pages of 8 kB.'))).toBe('kept');
    expect(reasonOf(basic('When does autovacuum start a VACUUM?', 'when dead tuples exceed 50 rows plus 20% of the table', 'exceeds 50 rows plus 20% of the table'))).toBe('kept');
    expect(reasonOf(basic('교착 상태의 조건은 몇 가지인가?', '4가지', '네 가지 조건이 모두 성립해야 한다', 'study_question:7'))).toBe('kept');
  });

  test('a number missing from the evidence, or changed, drops the card', () => {
    expect(reasonOf(cloze('PostgreSQL stores data in pages of {{c1::16 kB}}.', 'PostgreSQL stores table and index data in pages of 8 kB.'))).toBe('number_not_in_evidence');
    // 20 appears in the evidence, but as a percentage only
    expect(reasonOf(basic('How many dead tuples start autovacuum?', '20 rows', 'exceeds 50 rows plus 20% of the table'))).toBe('number_not_in_evidence');
    // the year is in the passage but not in the card's quote
    expect(reasonOf(cloze('CFS는 {{c1::2007년}}에 도입되었다.', '리눅스의 CFS는', 'study_question:7'))).toBe('number_not_in_evidence');
    expect(reasonOf(basic('교착 상태의 조건은 몇 가지인가?', '다섯 가지', '네 가지 조건이 모두 성립해야 한다', 'study_question:7'))).toBe('number_not_in_evidence');
  });
});

describe('leak guard', () => {
  test('basic: the answer in the cue leaks, normalised (case, punctuation, Korean particles, word order)', () => {
    expect(answerLeak(basic('A partial index is built over a subset of rows. What is built over a subset of rows?', 'A partial index.', 'x'))).toBe('cue');
    expect(answerLeak(basic('What does the predicate of an index decide?', 'index predicate', 'x'))).toBe('cue');
    expect(answerLeak(basic('교착 상태는 무엇이 멈춘 상태인가? 프로세스가 멈춘다', '프로세스', 'x'))).toBe('cue');
    expect(answerLeak(basic('What is stored in pages of 8 kB?', 'table and index data', 'x'))).toBeUndefined();
    expect(answerLeak(basic('교착 상태란 무엇인가?', '둘 이상의 프로세스가 자원을 기다리며 멈춘 상태', 'x'))).toBeUndefined();
  });

  test('a word inside a longer word is no leak', () => {
    expect(answerLeak(basic('What does the indexer build?', 'index', 'x'))).toBeUndefined();
    expect(answerLeak(basic('Which indexes can the planner use?', 'index', 'x'))).toBe('cue');
  });

  test('cloze: the answer visible elsewhere in the text, in a sibling deletion or in the hint leaks', () => {
    expect(answerLeak(cloze('A {{c1::partial index}} is a partial index over some rows.', 'x'))).toBe('c1');
    expect(answerLeak(cloze('{{c1::VACUUM}} runs when autovacuum decides that {{c2::VACUUM}} is due.', 'x'))).toBe('c1');
    expect(answerLeak(cloze('{{c1::VACUUM::the VACUUM command}} reclaims {{c2::dead tuples}}.', 'x'))).toBe('c1');
    expect(answerLeak(cloze('{{c1::VACUUM}} reclaims {{c2::dead tuples::tuples left by VACUUM}}.', 'x'))).toBeUndefined();
    expect(answerLeak(cloze('{{c1::라운드 로빈}} 스케줄링은 라운드 로빈 방식이다.', 'x'))).toBe('c1');
    expect(answerLeak(cloze('{{c1::VACUUM}} reclaims space held by {{c2::dead tuples}}.', 'x'))).toBeUndefined();
    // the same group hidden twice is no leak: both are hidden together
    expect(answerLeak(cloze('{{c1::VACUUM}} is slow; {{c1::VACUUM}} FULL is slower.', 'x'))).toBeUndefined();
  });

  test('a leak spelled with other accents, case or width is still a leak', () => {
    expect(answerLeak(basic('Why does a résumé list one page per job?', 'resume', 'x'))).toBe('cue');
    expect(answerLeak(basic('Which classifier is called Naïve Bayes?', 'naive bayes', 'x'))).toBe('cue');
    expect(answerLeak(basic('Which document is a resume?', 'RÉSUMÉ', 'x'))).toBe('cue');
    expect(answerLeak(cloze('The {{c1::café}} pattern keeps a cafe close to the office.', 'x'))).toBe('c1');
    expect(answerLeak(basic('ＦＵＬＬ ｗｉｄｔｈ text', 'full width', 'x'))).toBe('cue');
    // folding keeps Hangul intact: a different word is still no leak
    expect(answerLeak(basic('교착 상태란 무엇인가?', '교차 상태', 'x'))).toBeUndefined();
  });

  test('through guardMemoCards the leak is a drop reason', () => {
    expect(reasonOf(cloze('A {{c1::partial index}} is a partial index built over a subset of rows.', 'A partial index is an index built over a subset'))).toBe('answer_leak');
  });
});

describe('dedup and counts', () => {
  const a = basic('What is the predicate of a partial index?', 'a conditional expression', 'defined by a conditional expression called the predicate');
  const same = basic('what is the PREDICATE of a partial-index', 'A conditional expression.', 'called the predicate of the partial index');
  const other = cloze('PostgreSQL stores data in pages of {{c1::8 kB}}.', 'pages of 8 kB');

  test('the key ignores case, spacing and punctuation, but not words, kind or which part is hidden', () => {
    expect(memoCardKey(a)).toBe(memoCardKey(same));
    expect(memoCardKey(a)).toMatch(/^basic:[0-9a-f]{64}$/);
    expect(memoCardKey(basic('What is the predicate of a partial index?', 'an expression', 'x'))).not.toBe(memoCardKey(a));
    expect(memoCardKey(cloze('{{c1::VACUUM}} reclaims {{c2::dead tuples}}', 'x'))).toBe(memoCardKey(cloze('{{c2::vacuum}} reclaims {{c1::dead tuples::hint}}.', 'x')));
    expect(memoCardKey(cloze('{{c1::VACUUM}} reclaims dead tuples', 'x'))).not.toBe(memoCardKey(cloze('VACUUM reclaims {{c1::dead tuples}}', 'x')));
  });

  test('duplicates within the batch and of live cards are dropped and every drop is counted', () => {
    const leak = basic('Which pages of 8 kB hold data?', 'pages of 8 kB', 'pages of 8 kB');
    const invented = basic('What does VACUUM do?', 'reclaims space', 'VACUUM reclaims space');
    const out = guardMemoCards({ cards: [a, same, other, leak, invented, other], passages, liveKeys: [memoCardKey(other)] });
    expect(out.kept.map((k) => k.index)).toEqual([0]);
    expect(out.dropped.map((d) => [d.index, d.reason])).toEqual([
      [1, 'duplicate_in_batch'],
      [2, 'duplicate_of_live'],
      [3, 'answer_leak'],
      [4, 'evidence_not_in_source'],
      [5, 'duplicate_of_live'],
    ]);
    expect(out.droppedByReason).toEqual({ no_content: 0, evidence_not_in_source: 1, evidence_off_topic: 0, number_not_in_evidence: 0, answer_leak: 1, duplicate_in_batch: 1, duplicate_of_live: 2 });
    expect(Object.keys(out.droppedByReason)).toEqual([...DROP_REASONS]);
  });

  test('a bad card does not shadow a later good card with the same key', () => {
    const bad = basic(a.kind === 'basic' ? a.cue : '', 'a conditional expression', 'not in any passage');
    const out = guardMemoCards({ cards: [bad, a], passages });
    expect(out.kept.map((k) => k.index)).toEqual([1]);
  });

  test('a card with no letter or digit left is dropped as no_content', () => {
    expect(reasonOf(basic('???', '!!!', 'pages of 8 kB'))).toBe('no_content');
    expect(reasonOf(cloze('{{c1::VACUUM}}.', 'x'))).toBe('no_content');
  });
});

describe('batch verdict', () => {
  const good = basic('What is the predicate of a partial index?', 'a conditional expression', 'defined by a conditional expression called the predicate');
  const bad = basic('What does VACUUM do?', 'reclaims space', 'VACUUM reclaims space');

  test('no card returned, or all dropped: all_dropped and needs_review with the reason', () => {
    expect(batchVerdict(guardMemoCards({ cards: [], passages }), 0)).toEqual({ allDropped: true, needsReview: true, reason: 'no_cards: the extraction returned no card' });
    const v = batchVerdict(guardMemoCards({ cards: [bad, bad], passages }), 2);
    expect(v).toEqual({ allDropped: true, needsReview: true, reason: 'all_dropped: 2 of 2 cards dropped (evidence_not_in_source 2)' });
  });

  test('mostly dropped by quality guards: needs_review; duplicates do not count as bad', () => {
    expect(batchVerdict(guardMemoCards({ cards: [good, bad, bad], passages }), 3)).toMatchObject({ allDropped: false, needsReview: true });
    expect(batchVerdict(guardMemoCards({ cards: [good, good, good], passages }), 3)).toEqual({ allDropped: false, needsReview: false, reason: null });
    expect(batchVerdict(guardMemoCards({ cards: [good, bad], passages }), 2)).toMatchObject({ needsReview: false });
  });
});
