/**
 * AR-9 key values (what the guards protect and the local runtime fills slots from): absolute and
 * relative dates in Korean and English, ranges, months, amounts in ₩/원/$ and counts, resolved
 * against Tuesday 2026-12-01.
 */
import { resolveWeekday } from '../../../src/domain/ai-runs/calendar';
import { extractKeyValues } from '../../../src/domain/ai-runs/extract';

const TODAY = '2026-12-01'; // a Tuesday
const kv = (text: string, today = TODAY) => extractKeyValues(text, today);

describe('extractKeyValues: dates', () => {
  it.each([
    ['by Friday', '2026-12-04'],
    ['this Friday', '2026-12-04'],
    ['next Friday', '2026-12-11'],
    ['last Friday', '2026-11-27'],
    ['on Tuesday', '2026-12-01'],
    ['금요일까지', '2026-12-04'],
    ['이번 주 월요일', '2026-11-30'],
    ['다음 주 월요일', '2026-12-07'],
    ['다음주 월요일', '2026-12-07'],
    ['지난주 금요일', '2026-11-27'],
    ['tomorrow', '2026-12-02'],
    ['the day after tomorrow', '2026-12-03'],
    ['내일', '2026-12-02'],
    ['모레', '2026-12-03'],
    ['어제', '2026-11-30'],
    ['in 3 days', '2026-12-04'],
    ['3일 후', '2026-12-04'],
    ['2026-12-05', '2026-12-05'],
    ['2026.12.05', '2026-12-05'],
    ['2026년 12월 5일', '2026-12-05'],
    ['12월 5일', '2026-12-05'],
    ['Dec 5th', '2026-12-05'],
    ['December 5, 2027', '2027-12-05'],
    ['5 December', '2026-12-05'],
    ['12/5', '2026-12-05'],
    ['Jan 3', '2027-01-03'],
    ['Nov 20', '2026-11-20'],
    ['by the end of the month', '2026-12-31'],
    ['월말까지', '2026-12-31'],
  ])('%s → %s', (text, date) => {
    const r = kv(text);
    expect(r.dates.map((d) => d.date)).toEqual([date]);
    expect(r.ranges).toEqual([]);
    expect(r.counts).toEqual([]);
  });

  it('a bare weekday on that weekday is today; "next" is the following week', () => {
    expect(kv('by Friday', '2026-12-04').dates[0]?.date).toBe('2026-12-04');
    expect(kv('next Friday', '2026-12-04').dates[0]?.date).toBe('2026-12-11');
    expect(resolveWeekday('2026-12-06', 0, 1)).toBe('2026-12-07'); // Sunday → next week's Monday
  });

  it('rejects impossible calendar dates', () => {
    expect(kv('2026-02-30').dates).toEqual([]);
    expect(kv('13/45').dates).toEqual([]);
  });
});

describe('extractKeyValues: ranges and months', () => {
  it.each([
    ['Dec 22-24', '2026-12-22', '2026-12-24'],
    ['from Dec 22 to Dec 24', '2026-12-22', '2026-12-24'],
    ['12월 22일부터 24일까지', '2026-12-22', '2026-12-24'],
    ['12월 22일~12월 24일', '2026-12-22', '2026-12-24'],
    ['12/22-12/24', '2026-12-22', '2026-12-24'],
    ['Dec 30 - Jan 2', '2026-12-30', '2027-01-02'],
    ['from Monday to Wednesday', '2026-12-07', '2026-12-09'],
    ['다음 주 월요일부터 수요일까지', '2026-12-07', '2026-12-09'],
  ])('%s → %s … %s', (text, start, end) => {
    const r = kv(text);
    expect(r.ranges).toEqual([expect.objectContaining({ startDate: start, endDate: end, from: 'range' })]);
    expect(r.dates).toEqual([]);
  });

  it.each([
    ['11월 급여', '2026-11-01', '2026-11-30'],
    ['1월분 수당', '2026-01-01', '2026-01-31'],
    ['지난달 월급', '2026-11-01', '2026-11-30'],
    ['이번 달 급여', '2026-12-01', '2026-12-31'],
    ['last month', '2026-11-01', '2026-11-30'],
    ['for October', '2026-10-01', '2026-10-31'],
    ['my November salary', '2026-11-01', '2026-11-30'],
  ])('month %s → %s … %s', (text, start, end) => {
    expect(kv(text).ranges).toEqual([expect.objectContaining({ startDate: start, endDate: end, from: 'month' })]);
  });

  it('"and" joins dates only after "between"', () => {
    expect(kv('between Dec 22 and Dec 24').ranges).toHaveLength(1);
    expect(kv('Dec 22 and Dec 24').dates).toHaveLength(2);
  });
});

describe('extractKeyValues: amounts', () => {
  it.each([
    ['₩350,000', 350000, 'KRW'],
    ['350,000원', 350000, 'KRW'],
    ['35만원', 350000, 'KRW'],
    ['35만 원', 350000, 'KRW'],
    ['3만 5천원', 35000, 'KRW'],
    ['1억 2천만원', 120000000, 'KRW'],
    ['1.5만원', 15000, 'KRW'],
    ['₩35만', 350000, 'KRW'],
    ['50,000 won', 50000, 'KRW'],
    ['KRW 12000', 12000, 'KRW'],
    ['$120', 120, 'USD'],
    ['$1,200.50', 1200.5, 'USD'],
    ['$1.2k', 1200, 'USD'],
    ['120 dollars', 120, 'USD'],
    ['USD 99', 99, 'USD'],
  ])('%s → %d %s', (text, value, currency) => {
    expect(kv(text).amounts).toEqual([expect.objectContaining({ value, currency })]);
  });
});

describe('extractKeyValues: counts', () => {
  it.each([
    ['3 days', 3, 'days'],
    ['three days', 3, 'days'],
    ['a 2-day leave', 2, 'days'],
    ['half day', 0.5, 'days'],
    ['3일간', 3, 'days'],
    ['3일 동안', 3, 'days'],
    ['연차 2일', 2, 'days'],
    ['이틀', 2, 'days'],
    ['오후 반차', 0.5, 'days'],
    ['4 hours', 4, 'hours'],
    ['2.5 hrs', 2.5, 'hours'],
    ['4시간', 4, 'hours'],
    ['2 copies', 2, 'copies'],
    ['2부', 2, 'copies'],
  ])('%s → %d %s', (text, value, unit) => {
    expect(kv(text).counts).toEqual([expect.objectContaining({ value, unit })]);
  });

  it('a date is never a count: "12월 3일", "3일 후"', () => {
    expect(kv('12월 3일').counts).toEqual([]);
    expect(kv('3일 후').counts).toEqual([]);
  });
});

describe('extractKeyValues: sensitive data and mixed text', () => {
  it('reads no key value out of phones, RRNs, account numbers or e-mails', () => {
    const r = kv('010-1234-5678, 900101-1234567, 110-123-456789, kim2026@example.com');
    expect(r).toEqual({ dates: [], ranges: [], amounts: [], counts: [] });
  });

  it('finds every key value of a mixed request, in text order, with spans', () => {
    const text = '12월 3일 출장 택시비 35,000원, 식대 $20, 2부';
    const r = kv(text);
    expect(r.dates.map((d) => d.date)).toEqual(['2026-12-03']);
    expect(r.amounts.map((a) => [a.value, a.currency])).toEqual([
      [35000, 'KRW'],
      [20, 'USD'],
    ]);
    expect(r.counts.map((c) => c.value)).toEqual([2]);
    expect(text.slice(r.amounts[0]?.start, r.amounts[0]?.end)).toBe('35,000원');
  });
});
