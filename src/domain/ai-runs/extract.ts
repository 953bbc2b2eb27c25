/**
 * Key values of an HR request text (AR-9): dates (absolute and relative: "by Friday", "다음 주
 * 월요일", "12월 22일", "2026-12-05", "tomorrow", "3일 후"), date ranges ("Dec 22-24", "12월
 * 22일부터 24일까지", "from Monday to Wednesday"), months as periods ("11월 급여", "last month"),
 * amounts (₩350,000, 350,000원, 35만원, 3만 5천원, $120.50, 120 dollars) and counts ("3 days", "3일간",
 * "연차 2일", "반차" = half a day, "4 hours", "4시간", "2 copies", "2부"). The offline runtime fills slots from them and
 * the AR-9 guard checks that none is lost. Pure, no imports but the catalog, calendar and
 * sensitive-data modules: safe in workflow code.
 *
 * Dates are calendar dates `YYYY-MM-DD`, resolved against `today` (the reference day of the
 * request in its time zone). Weekday rules: a bare weekday ("Friday", "by Friday", "금요일까지",
 * "this Friday") is its next occurrence on or after today; "next Friday" / "다음 주 금요일" is
 * that weekday in the following Monday-based week; "last Friday" / "지난주 금요일" in the previous
 * week; "이번 주 금요일" in the current week. A month and day without a year take the year that
 * puts the date closest to today; a month alone takes its most recent occurrence not after today's
 * month (pay periods are in the past). Sensitive data (phones, RRNs, account numbers, e-mails) is
 * blanked before scanning, so its digits are never read as key values.
 */
import type { CountUnit, Currency } from './catalog';
import { addDays, daysBetween, endOfMonth, makeDate, monthOffset, nearestYear, recentMonth, resolveWeekday } from './calendar';
import { blankSensitive } from './sensitive';

/** A `[start, end)` UTF-16 offset span of the scanned text. */
export interface Span {
  start: number;
  end: number;
}

export interface DateHit extends Span {
  date: string;
}
export interface RangeHit extends Span {
  startDate: string;
  endDate: string;
  /** `month` for a month named alone ("November", "11월"), `range` for two dates joined. */
  from: 'range' | 'month';
}
export interface AmountHit extends Span {
  value: number;
  currency: Currency;
}
export interface CountHit extends Span {
  value: number;
  unit: CountUnit;
}

/** Every key value of a text, each list in text order; no two hits overlap. */
export interface KeyValues {
  dates: DateHit[];
  ranges: RangeHit[];
  amounts: AmountHit[];
  counts: CountHit[];
}

// ---------------------------------------------------------------------------------------------
// Vocabulary.

const EN_MONTHS: Record<string, number> = {
  january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6,
  july: 7, jul: 7, august: 8, aug: 8, september: 9, sep: 9, sept: 9, october: 10, oct: 10, november: 11, nov: 11,
  december: 12, dec: 12,
};
const EN_MONTH_RE = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';
const EN_WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const KO_WEEKDAYS = ['월', '화', '수', '목', '금', '토', '일'];
const EN_NUMBERS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, half: 0.5,
};
const EN_NUMBER_RE = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve';
const KO_NATIVE_DAYS: Record<string, number> = { 하루: 1, 이틀: 2, 사흘: 3, 나흘: 4, 닷새: 5, 엿새: 6, 이레: 7 };

function enNumber(s: string): number {
  return EN_NUMBERS[s] ?? Number(s);
}

function weekOf(word: string | undefined): -1 | 0 | 1 | undefined {
  if (!word) return undefined;
  const w = word.replace(/\s+/g, '');
  if (w === 'next' || w === '다음주' || w === '담주' || w === '차주') return 1;
  if (w === 'last' || w === '지난주' || w === '저번주') return -1;
  if (w === '이번주' || w === '금주') return 0;
  return undefined; // "this", "coming", "this coming": next occurrence on or after today
}

// ---------------------------------------------------------------------------------------------
// Date expressions.

interface Rule<T> {
  re: RegExp;
  make(m: RegExpExecArray, today: string): T | undefined;
}

const DATE_RULES: Rule<string>[] = [
  // 2026-12-05, 2026.12.05, 2026/12/05, 2026년 12월 5일
  { re: /(?<!\d)(\d{4})\s*[-./년]\s*(\d{1,2})\s*[-./월]\s*(\d{1,2})(?:\s*일)?(?!\d)/g, make: (m) => makeDate(Number(m[1]), Number(m[2]), Number(m[3])) },
  // 12월 5일
  { re: /(?<!\d)(\d{1,2})\s*월\s*(\d{1,2})\s*일/g, make: (m, t) => nearestYear(t, Number(m[1]), Number(m[2])) },
  // December 5th, 2026 / Dec. 5 / Dec 5
  {
    re: new RegExp(`\\b(${EN_MONTH_RE})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s*(\\d{4})\\b)?`, 'g'),
    make: (m, t) => (m[3] ? makeDate(Number(m[3]), EN_MONTHS[m[1] as string] ?? 0, Number(m[2])) : nearestYear(t, EN_MONTHS[m[1] as string] ?? 0, Number(m[2]))),
  },
  // 5th of December / 5 December 2026
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${EN_MONTH_RE})\\b\\.?(?:,?\\s*(\\d{4})\\b)?`, 'g'),
    make: (m, t) => (m[3] ? makeDate(Number(m[3]), EN_MONTHS[m[2] as string] ?? 0, Number(m[1])) : nearestYear(t, EN_MONTHS[m[2] as string] ?? 0, Number(m[1]))),
  },
  // 12/5 (month/day)
  { re: /(?<![\d/.])(\d{1,2})\/(\d{1,2})(?![\d/])/g, make: (m, t) => nearestYear(t, Number(m[1]), Number(m[2])) },
  // today, tomorrow, the day after tomorrow, yesterday
  { re: /\bthe day after tomorrow\b/g, make: (_m, t) => addDays(t, 2) },
  { re: /\b(today|tonight|tomorrow|yesterday)\b/g, make: (m, t) => addDays(t, m[1] === 'tomorrow' ? 1 : m[1] === 'yesterday' ? -1 : 0) },
  { re: /(오늘|내일|모레|내일모레|어제|그저께)/g, make: (m, t) => addDays(t, { 오늘: 0, 내일: 1, 모레: 2, 내일모레: 2, 어제: -1, 그저께: -2 }[m[1] as string] ?? 0) },
  // in 3 days, 3일 후 / 3일 뒤
  { re: new RegExp(`\\bin\\s+(\\d{1,2}|${EN_NUMBER_RE})\\s+days?\\b`, 'g'), make: (m, t) => addDays(t, enNumber(m[1] as string)) },
  { re: /(?<!\d)(\d{1,2})\s*일\s*(?:후|뒤)/g, make: (m, t) => addDays(t, Number(m[1])) },
  // end of the month, 이번 달 말, 월말
  { re: /\bend of (?:the |this )?month\b/g, make: (_m, t) => endOfMonth(t) },
  { re: /(이번\s*달\s*말|이달\s*말|월말)/g, make: (_m, t) => endOfMonth(t) },
  // next Friday, this Friday, by Friday, Friday
  {
    re: new RegExp(`\\b(?:(next|last|this coming|this|coming)\\s+(?:week\\s+)?)?(${EN_WEEKDAYS.join('|')})\\b`, 'g'),
    make: (m, t) => resolveWeekday(t, EN_WEEKDAYS.indexOf(m[2] as string), weekOf(m[1])),
  },
  // 다음 주 월요일, 이번 주 금요일, 금요일
  {
    re: /(?:(이번\s*주|금주|다음\s*주|담주|차주|지난\s*주|저번\s*주)\s*)?(월|화|수|목|금|토|일)요일/g,
    make: (m, t) => resolveWeekday(t, KO_WEEKDAYS.indexOf(m[2] as string), weekOf(m[1])),
  },
];

/** Words that join two dates into a range (checked on the text between them). */
const RANGE_JOINER = /^\s*(?:부터|에서|~|–|—|-|to|until|till|through|thru|and)\s*(?:the\s+)?$/;
const RANGE_OPENER = /(?:\bfrom|\bbetween)\s+(?:the\s+)?$/;
/** A bare day number after a joiner: "Dec 22-24", "12월 22일부터 24일까지", "22nd to the 24th". */
const BARE_DAY = /^(\d{1,2})(?:\s*일|st|nd|rd|th)?(?![\d/.:])(?!\s*(?:간|동안|후|뒤|days?\b|hours?\b|시간))/;

const MONTH_RULES: Rule<{ startDate: string; endDate: string }>[] = [
  // 11월 급여, 11월분 (a month not followed by a day)
  { re: /(?<![\d.\-/년])(\d{1,2})\s*월(?!\s*\d)(?!요일)/g, make: (m, t) => recentMonth(t, Number(m[1])) },
  { re: /(지난\s*달|지난달|저번\s*달|전월)/g, make: (_m, t) => monthOffset(t, -1) },
  { re: /(이번\s*달|이달|금월)(?!\s*말)/g, make: (_m, t) => monthOffset(t, 0) },
  { re: /\blast month(?:'s)?\b/g, make: (_m, t) => monthOffset(t, -1) },
  { re: /\bthis month(?:'s)?\b(?! end)/g, make: (_m, t) => monthOffset(t, 0) },
  // "for November", "in November", "November salary", "November's pay"
  {
    re: new RegExp(`\\b(?:(?:in|for|of)\\s+(${EN_MONTH_RE})\\b(?!\\.?\\s*\\d)|(${EN_MONTH_RE})(?:'s)?\\s+(?=(?:salary|pay|paycheck|payslip|payroll|wages?|bonus)\\b))`, 'g'),
    make: (m, t) => recentMonth(t, EN_MONTHS[(m[1] ?? m[2]) as string] ?? 0),
  },
];

// ---------------------------------------------------------------------------------------------
// Amounts.

const KO_UNITS: Record<string, number> = { 억: 1e8, 만: 1e4, 천: 1e3, 백: 1e2 };

/** Parses a Korean numeral block: "350,000", "35만", "3만 5천", "1억 2천만", "1.5만". */
function parseKoreanNumber(block: string): number | undefined {
  let total = 0;
  let section = 0;
  let any = false;
  for (const t of block.matchAll(/(\d[\d,]*(?:\.\d+)?)?\s*([억만천백])?/g)) {
    if (!t[1] && !t[2]) continue;
    const n = t[1] ? Number(t[1].replace(/,/g, '')) : undefined;
    if (n !== undefined && !Number.isFinite(n)) return undefined;
    const unit = t[2] ? (KO_UNITS[t[2]] as number) : 1;
    any = true;
    if (unit >= 1e4) {
      total += (section + (n ?? (section === 0 ? 1 : 0))) * unit;
      section = 0;
    } else section += (n ?? 1) * unit;
  }
  const value = total + section;
  return any && value > 0 ? value : undefined;
}

function parsePlain(s: string): number | undefined {
  const v = Number(s.replace(/,/g, ''));
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

/**
 * A Korean numeral: digits (with commas, a decimal part) and at most five unit steps (억, 만, 천,
 * 백), each optionally followed by digits: "350,000", "35만", "3만 5천", "1억 2천만". Bounded and
 * unambiguous (every step starts with a unit character), so matching never backtracks badly.
 */
const KO_NUMBER = '\\d[\\d,]{0,15}(?:\\.\\d{1,4})?(?:\\s{0,3}[억만천백](?:\\s{0,3}\\d[\\d,]{0,15}(?:\\.\\d{1,4})?)?){0,5}';

const AMOUNT_RULES: Rule<{ value: number; currency: Currency }>[] = [
  // ₩350,000 / ₩ 35만 / KRW 350,000
  { re: new RegExp(`(?:₩|\\bkrw)\\s?(${KO_NUMBER})(?:\\s*원)?`, 'g'), make: (m) => krw(parseKoreanNumber(m[1] as string)) },
  // 350,000원 / 35만원 / 3만 5천원 / 1억 2천만 원
  { re: new RegExp(`(?<![\\d.,억만천백]\\s{0,3})(${KO_NUMBER})\\s*원`, 'g'), make: (m) => krw(parseKoreanNumber(m[1] as string)) },
  // 350,000 won / 350000 krw
  { re: /(?<![\d.,])(\d[\d,]*)\s?(?:won|krw)\b/g, make: (m) => krw(parsePlain(m[1] as string)) },
  // $120, $1,200.50, $1.2k, USD 120
  { re: /(?:\$|\busd)\s?(\d[\d,]*(?:\.\d{1,2})?)(k\b)?/g, make: (m) => usd(parsePlain(m[1] as string), m[2]) },
  // 120 dollars / 120 usd / 120 bucks
  { re: /(?<![\d.,$])(\d[\d,]*(?:\.\d{1,2})?)\s?(?:dollars?|usd|bucks)\b/g, make: (m) => usd(parsePlain(m[1] as string)) },
];

function krw(v: number | undefined): { value: number; currency: Currency } | undefined {
  return v === undefined ? undefined : { value: Math.round(v), currency: 'KRW' };
}
function usd(v: number | undefined, k?: string): { value: number; currency: Currency } | undefined {
  return v === undefined ? undefined : { value: Math.round(v * (k ? 1000 : 1) * 100) / 100, currency: 'USD' };
}

// ---------------------------------------------------------------------------------------------
// Counts.

const COUNT_RULES: Rule<{ value: number; unit: CountUnit }>[] = [
  // 3 days, three working days, 2-day, a day off
  {
    re: new RegExp(`\\b(\\d{1,3}(?:\\.5)?|${EN_NUMBER_RE}|a|an|half)[\\s-](?:(?:working|business|work|full)\\s)?days?\\b`, 'g'),
    make: (m) => ({ value: enNumber(m[1] as string), unit: 'days' }),
  },
  // 3일간, 3일 동안, 3일 연차, 3일 쓰고, 3일을 사용, 연차 3일, 휴가 2일
  { re: /(?<![\d월])(\d{1,3})\s*일\s*(?:간|동안|(?=\s*(?:연차|휴가|병가|쉬|정도|쓰|사용|신청|을|를)))/g, make: (m) => ({ value: Number(m[1]), unit: 'days' }) },
  { re: /(?:연차|휴가|병가|휴무)\s*(\d{1,3})\s*일(?!\s*(?:후|뒤|부터|까지))/g, make: (m) => ({ value: Number(m[1]), unit: 'days' }) },
  { re: /(하루|이틀|사흘|나흘|닷새|엿새|이레)/g, make: (m) => ({ value: KO_NATIVE_DAYS[m[1] as string] ?? 1, unit: 'days' }) },
  // 반차 (a half-day leave), half a day
  { re: /(?:오전\s*|오후\s*)?반차/g, make: () => ({ value: 0.5, unit: 'days' }) },
  // 4 hours, 2.5 hrs, 4시간
  { re: new RegExp(`\\b(\\d{1,2}(?:\\.5)?|${EN_NUMBER_RE})\\s?(?:hours?|hrs?)\\b`, 'g'), make: (m) => ({ value: enNumber(m[1] as string), unit: 'hours' }) },
  { re: /(?<!\d)(\d{1,2}(?:\.5)?)\s*시간/g, make: (m) => ({ value: Number(m[1]), unit: 'hours' }) },
  // 2 copies, 2부, 2통
  { re: new RegExp(`\\b(\\d{1,2}|${EN_NUMBER_RE})\\s(?:copies|copy)\\b`, 'g'), make: (m) => ({ value: enNumber(m[1] as string), unit: 'copies' }) },
  { re: /(?<!\d)(\d{1,2})\s*(?:부|통)(?![가-힣])/g, make: (m) => ({ value: Number(m[1]), unit: 'copies' }) },
];

// ---------------------------------------------------------------------------------------------

/** Lower-cases ASCII only, so offsets into the original text stay valid. */
function scanText(text: string): string {
  return blankSensitive(text).replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function scan<T>(s: string, rules: readonly Rule<T>[], today: string, taken: Span[]): (Span & { value: T })[] {
  const hits: (Span & { value: T })[] = [];
  for (const rule of rules) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(s); m; m = rule.re.exec(s)) {
      const start = m.index;
      const end = start + m[0].replace(/\s+$/, '').length;
      if (end <= start || taken.some((t) => start < t.end && t.start < end)) continue;
      const value = rule.make(m, today);
      if (value === undefined) continue;
      hits.push({ start, end, value });
      taken.push({ start, end });
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

/**
 * The key values of `text` (AR-9), resolved against `today` (`YYYY-MM-DD`). Dates joined by a
 * range word ("부터", "~", "-", "to", "until", "through") become one range; a bare day after a
 * joiner takes the month of the date before it. Counts and amounts never overlap a date.
 */
export function extractKeyValues(text: string, today: string): KeyValues {
  const s = scanText(text);
  const taken: Span[] = [];
  const dateHits = scan(s, DATE_RULES, today, taken);

  const dates: DateHit[] = [];
  const ranges: RangeHit[] = [];
  for (let i = 0; i < dateHits.length; i++) {
    const a = dateHits[i] as Span & { value: string };
    const next = dateHits[i + 1];
    const between = next ? s.slice(a.end, next.start) : '';
    if (next && RANGE_JOINER.test(between) && (between.trim() !== 'and' || RANGE_OPENER.test(s.slice(0, a.start)))) {
      let end = next.value;
      if (end < a.value) end = addDays(end, 7 * Math.ceil(daysBetween(end, a.value) / 7)); // "Friday to Monday"
      if (daysBetween(a.value, end) <= 366) {
        ranges.push({ start: a.start, end: next.end, startDate: a.value, endDate: end, from: 'range' });
        i++;
        continue;
      }
    }
    // "Dec 22-24", "12월 22일부터 24일까지"
    // Only after a calendar date (a month and a day), never after "Friday" or "in 3 days".
    const calendar = /\d/.test(s.slice(a.start, a.end)) && !/(?:후|뒤|days?)$/.test(s.slice(a.start, a.end));
    const joiner = calendar ? /^\s*(?:부터|에서|~|–|—|-|to|until|till|through|thru)\s*(?:the\s+)?/.exec(s.slice(a.end)) : null;
    const bare = joiner ? BARE_DAY.exec(s.slice(a.end + joiner[0].length)) : null;
    if (joiner && bare) {
      const day = Number(bare[1]);
      const y = Number(a.value.slice(0, 4));
      const m = Number(a.value.slice(5, 7));
      const endDate = day >= Number(a.value.slice(8, 10)) ? makeDate(y, m, day) : makeDate(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, day);
      const end = a.end + joiner[0].length + bare[0].length;
      if (endDate && !taken.some((t) => t !== a && t.start >= a.end && t.start < end)) {
        ranges.push({ start: a.start, end, startDate: a.value, endDate, from: 'range' });
        taken.push({ start: a.end, end });
        continue;
      }
    }
    dates.push({ start: a.start, end: a.end, date: a.value });
  }

  for (const h of scan(s, MONTH_RULES, today, taken)) {
    ranges.push({ start: h.start, end: h.end, startDate: h.value.startDate, endDate: h.value.endDate, from: 'month' });
  }
  ranges.sort((a, b) => a.start - b.start);
  const amounts = scan(s, AMOUNT_RULES, today, taken).map((h) => ({ start: h.start, end: h.end, ...h.value }));
  const counts = scan(s, COUNT_RULES, today, taken).map((h) => ({ start: h.start, end: h.end, ...h.value }));
  return { dates, ranges, amounts, counts };
}
