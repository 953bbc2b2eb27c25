/**
 * ST-5 number reading of the card guard "every number in a card appears in its evidence": digits,
 * separators, decimals, percentages and Korean numerals compare by value; words are no numbers.
 */
import { findNumbers, sinoKoreanValue, unbackedNumbers } from '../../../src/domain/study/numbers';

const values = (text: string) => findNumbers(text).map((n) => `${n.percent ? '%' : ''}${n.value}`);

describe('findNumbers', () => {
  test('digits, thousands separators, decimals and leading zeros become canonical values', () => {
    expect(values('PostgreSQL pages are 8 KB; a table may hold 1,000,000 rows at 3.50 ms per 007 lookups.')).toEqual(['8', '1000000', '3.5', '7']);
    expect(values('Lists such as 1,2,3 are three numbers')).toEqual(['1', '2', '3']);
  });

  test('versions and addresses stay literal; full-width digits count', () => {
    expect(values('Node 20.10.0 listens on 127.0.0.1')).toEqual(['20.10.0', '127.0.0.1']);
    expect(values('ＰＯＳＴＧＲＥＳ １５')).toEqual(['15']);
  });

  test('percentages are marked in every spelling', () => {
    expect(values('45% vs 45 % vs 45 percent vs 45퍼센트 vs 45프로 vs 45')).toEqual(['%45', '%45', '%45', '%45', '%45', '45']);
  });

  test('Korean units, composites, Sino-Korean and native numerals before a counter', () => {
    expect(values('연봉은 3만 원에서 1.5억 원, 2천만 원, 1억 2천만 원까지')).toEqual(['30000', '150000000', '20000000', '120000000']);
    expect(values('삼십 개의 프로세스가 이천 년부터 실행됐다')).toEqual(['30', '2000']);
    expect(values('교착 상태의 네 가지 조건, 두 번 시도, 열 개의 스레드, 세가지')).toEqual(['4', '2', '10', '3']);
    expect(values('오십퍼센트의 확률')).toEqual(['%50']);
  });

  test('a lone unit syllable before a counter is a number; glued, such syllables start ordinary words', () => {
    expect(values('백 명이 참여했고 천 년이 지났다, 만 원')).toEqual(['100', '1000', '10000']);
    // 조명 (lighting), 만일 (if), 십분 (fully), 백일 (a baby's 100th day, as one word)
    expect(values('조명을 바꾸면 만일의 경우에도 십분 활용할 수 있다. 백일 잔치')).toEqual([]);
  });

  test('digits inside an identifier are part of a word, not a quantity', () => {
    expect(values('The mx5 and the ipv6 stack use h264 and utf8 on x86_64, v1.2.3 too')).toEqual([]);
    expect(values('mx5 has 2 seats, 5GB of disk and 100ms latency')).toEqual(['2', '5', '100']);
    expect(unbackedNumbers(['The mx5 has 2 seats'], ['A two-seater: 2 seats.'])).toEqual([]);
  });

  test('Hangul syllables that are ordinary words are not read as numbers', () => {
    // 구조 (structure), 이 (this), 일 (work), 천천히 (slowly), 한국 (Korea), 세계 (world), 조사 결과, 한일, 세일
    expect(values('이 구조는 일을 천천히 처리한다. 한국과 세계의 조사 결과, 한일 세일 구조 분석')).toEqual([]);
  });

  test('English number words are not read', () => {
    expect(values('One of the three replicas is the primary')).toEqual([]);
  });

  test('sinoKoreanValue needs a unit syllable and a well-formed order', () => {
    expect(sinoKoreanValue('이천이십사')).toBe(2024);
    expect(sinoKoreanValue('백만')).toBe(1_000_000);
    expect(sinoKoreanValue('삼억오천만')).toBe(350_000_000);
    expect(sinoKoreanValue('사이')).toBeUndefined();
    expect(sinoKoreanValue('천천')).toBeUndefined();
    expect(sinoKoreanValue('만억')).toBeUndefined();
  });
});

describe('unbackedNumbers', () => {
  test('a number is backed by the same value in another spelling', () => {
    expect(unbackedNumbers(['The pool holds 10,000 connections'], ['It holds 10000 connections.'])).toEqual([]);
    expect(unbackedNumbers(['최대 3만 건'], ['최대 30,000건을 처리한다.'])).toEqual([]);
    expect(unbackedNumbers(['네 가지 조건'], ['교착 상태에는 4가지 조건이 있다.'])).toEqual([]);
  });

  test('a changed number, or a percentage backed only by a plain number, is unbacked', () => {
    expect(unbackedNumbers(['Pages are 16 KB'], ['Pages are 8 KB.']).map((n) => n.raw)).toEqual(['16']);
    expect(unbackedNumbers(['20% of rows'], ['after 20 rows changed']).map((n) => n.raw)).toEqual(['20%']);
  });
});

test('long and adversarial inputs are read in one pass (no quadratic work on long Hangul words or digit runs)', () => {
  const hangul = '십'.repeat(200_000);
  const numerals = '일이삼사오육칠팔구'.repeat(20_000);
  const digits = `${'1,'.repeat(100_000)}1 ${'9.'.repeat(100_000)}9`;
  expect(findNumbers(`${hangul} ${numerals} 개`)).toEqual([]);
  expect(findNumbers(digits)).toHaveLength(100_002);
});
