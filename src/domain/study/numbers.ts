/**
 * Numbers in study text, for the ST-5 guard "every number in a card appears in its evidence".
 * Recognised, each as a canonical value so that different spellings of one quantity compare equal:
 * - digits with thousands separators and decimals: `1,000` = `1000`, `3.50` = `3.5`, `007` = `7`;
 *   dotted sequences such as versions and addresses (`1.2.3`, `192.168.0.1`) stay literal;
 * - percentages (`45%`, `45 %`, `45 percent`, `45퍼센트`, `45프로`): a percentage only matches a
 *   percentage;
 * - Korean numerals: digits with Korean units (`3만` = 30000, `1.5억`, `2천만`, `1억 2천만` =
 *   120000000), Sino-Korean numerals written in Hangul before a counter (`삼십 개`, `이천 년`), and
 *   native numerals before a counter (`세 가지` = 3, `두 번` = 2, `열 개` = 10), and a lone unit
 *   syllable before a counter after a space (`백 명` = 100). Hangul numerals are only read before a
 *   counter because their syllables are ordinary words elsewhere (구조, 이, 일).
 * Digits glued to a Latin letter or `_` belong to an identifier (`mx5`, `ipv6`, `h264`) and are no
 * quantity. English number words are not read ("one of the options" is no quantity).
 * One linear pass over the text (NFKC-normalised first, so full-width digits count). Pure, no I/O.
 */

/** One number found in a text: canonical `value` (decimal string, or the literal for dotted sequences) and whether it is a percentage. */
export interface FoundNumber {
  value: string;
  percent: boolean;
  /** The text it was read from (for messages). */
  raw: string;
}

const SMALL_UNITS: Record<string, number> = { 십: 10, 백: 100, 천: 1000 };
const BIG_UNITS: Record<string, number> = { 만: 1e4, 억: 1e8, 조: 1e12 };
const SINO_DIGITS: Record<string, number> = { 일: 1, 이: 2, 삼: 3, 사: 4, 오: 5, 육: 6, 칠: 7, 팔: 8, 구: 9 };
const NATIVE: Record<string, number> = {
  한: 1, 하나: 1, 두: 2, 둘: 2, 세: 3, 셋: 3, 네: 4, 넷: 4, 다섯: 5, 여섯: 6, 일곱: 7, 여덟: 8, 아홉: 9, 열: 10,
  스무: 20, 스물: 20, 서른: 30, 마흔: 40, 쉰: 50, 첫: 1,
};
/** Counters after which a Hangul numeral is read as a number (longest first where they share a prefix). */
const COUNTERS = [
  '번째', '가지', '종류', '단계', '시간', '퍼센트', '바이트', '킬로바이트', '메가바이트', '기가바이트', '개월', '주일', '년', '개', '명', '번', '배',
  '살', '초', '분', '층', '회', '차', '줄', '장', '권', '대', '곳', '달', '주', '월', '일', '원', '점', '쪽', '행', '열', '칸', '비트', '세기',
];

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xa0 || c === 0x3000;
const isHangulSyllable = (c: number): boolean => c >= 0xac00 && c <= 0xd7a3;
const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
/** A character that glues a following digit into an identifier: a Latin letter or `_`. */
const isIdentifierChar = (c: number): boolean => isAsciiLetter(c) || c === 0x5f;
const isAlnum = (c: number): boolean => isIdentifierChar(c) || isDigit(c);

/** End of the identifier whose digits start at `i`: letters, digits and `_`, with `.`/`-` joining further such runs. */
function identifierEnd(t: string, i: number): number {
  let j = i;
  for (;;) {
    while (j < t.length && isAlnum(t.charCodeAt(j))) j++;
    const sep = t[j];
    if ((sep === '.' || sep === '-') && isAlnum(t.charCodeAt(j + 1))) j++;
    else return j;
  }
}

/** Canonical decimal string of a finite number (12 significant digits, no exponent for usual sizes). */
export function canonicalNumber(n: number): string {
  const r = Number(n.toPrecision(12));
  return Object.is(r, -0) ? '0' : String(r);
}

/**
 * Reads a number's digits at `i` in one pass: digit groups joined by `.` or `,`. A `,` continues the
 * number only before exactly three digits after a first group of at most three (thousands), and not
 * after a decimal point; otherwise the number ends before it ("1,2,3" is three numbers). Two or
 * more dots make a literal (versions, addresses). Returns the text, its value (undefined for a
 * literal) and the end index.
 */
function readDigits(t: string, i: number): { literal: string; value: number | undefined; end: number } {
  let end = i;
  while (end < t.length && isDigit(t.charCodeAt(end))) end++;
  const firstLength = end - i;
  let dots = 0;
  for (;;) {
    const sep = t[end];
    if ((sep !== '.' && sep !== ',') || !isDigit(t.charCodeAt(end + 1))) break;
    let next = end + 1;
    while (next < t.length && isDigit(t.charCodeAt(next))) next++;
    if (sep === ',' && (dots > 0 || firstLength > 3 || next - end - 1 !== 3)) break;
    if (sep === '.') dots++;
    end = next;
  }
  const literal = t.slice(i, end);
  if (dots >= 2) return { literal, value: undefined, end };
  return { literal, value: Number(literal.replace(/,/g, '')), end };
}

/** Korean unit suffixes directly after a number at `i` (`천만`, `억`, `만`): the multiplier and the end index. */
function readUnits(t: string, i: number): { mult: number; big: number; end: number } {
  let j = i;
  let small = 1;
  let big = 1;
  const s = SMALL_UNITS[t.charAt(j)];
  if (s !== undefined) {
    small = s;
    j++;
  }
  const b = BIG_UNITS[t.charAt(j)];
  if (b !== undefined) {
    big = b;
    j++;
  }
  return { mult: small * big, big: b === undefined ? 1 : b, end: j };
}

/** Particles that may follow a counter inside its word (‘년에’, ‘개의’). */
const PARTICLES = new Set(['', '은', '는', '이', '가', '을', '를', '의', '에', '도', '만', '로', '와', '과', '씩', '에서', '으로', '까지', '부터', '이다', '입니다', '이며', '이고']);

/** True when `s` is a counter, alone or followed by a particle. */
function isCounterWord(s: string): boolean {
  return COUNTERS.some((c) => s.startsWith(c) && PARTICLES.has(s.slice(c.length)));
}

/** True when a counter word follows at `i` after one or two spaces. */
function counterFollows(t: string, i: number): boolean {
  let j = i;
  while (j < t.length && isSpace(t.charCodeAt(j)) && j - i < 2) j++;
  if (j === i || !isHangulSyllable(t.charCodeAt(j))) return false;
  return isCounterWord(hangulWord(t, j).word);
}

/** Percent marker after a number at `i`: the index after it, or undefined. */
function percentAt(t: string, i: number): number | undefined {
  let j = i;
  if (j < t.length && t.charCodeAt(j) === 0x20) j++;
  if (t.charAt(j) === '%') return j + 1;
  for (const w of ['percent', 'per cent', '퍼센트', '프로']) {
    if (t.slice(j, j + w.length).toLowerCase() === w) {
      const after = t.charCodeAt(j + w.length);
      if (!(after >= 0x61 && after <= 0x7a)) return j + w.length;
    }
  }
  return undefined;
}

/** A Sino-Korean numeral in Hangul (e.g. 이천이십사) in `word`, or undefined when it is not well formed or has no unit syllable. */
export function sinoKoreanValue(word: string): number | undefined {
  if (word.length < 2) return undefined;
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  let sawUnit = false;
  let lastBig = Infinity;
  let lastSmall = Infinity;
  for (const ch of word) {
    const d = SINO_DIGITS[ch];
    const s = SMALL_UNITS[ch];
    const b = BIG_UNITS[ch];
    if (d !== undefined) {
      if (digit !== undefined) return undefined;
      digit = d;
    } else if (s !== undefined) {
      if (s >= lastSmall) return undefined;
      section += (digit ?? 1) * s;
      digit = undefined;
      lastSmall = s;
      sawUnit = true;
    } else if (b !== undefined) {
      if (b >= lastBig) return undefined;
      section += digit ?? 0;
      total += (section || 1) * b;
      section = 0;
      digit = undefined;
      lastBig = b;
      lastSmall = Infinity;
      sawUnit = true;
    } else {
      return undefined;
    }
  }
  return sawUnit ? total + section + (digit ?? 0) : undefined;
}

/** The Hangul word starting at `i` (syllables only) and its end. */
function hangulWord(t: string, i: number): { word: string; end: number } {
  let j = i;
  while (j < t.length && isHangulSyllable(t.charCodeAt(j))) j++;
  return { word: t.slice(i, j), end: j };
}

/**
 * Every number in `text`, in order (see the module comment for what counts). Linear in the length
 * of `text`.
 */
export function findNumbers(text: string): FoundNumber[] {
  const t = text.normalize('NFKC');
  const out: FoundNumber[] = [];
  let i = 0;
  while (i < t.length) {
    const c = t.charCodeAt(i);
    if (isDigit(c) && i > 0 && isIdentifierChar(t.charCodeAt(i - 1))) {
      i = identifierEnd(t, i); // `mx5`, `ipv6`, `h264`, `v1.2`: part of a name, not a quantity
      continue;
    }
    if (isDigit(c)) {
      const start = i;
      const d = readDigits(t, i);
      i = d.end;
      if (d.value === undefined) {
        out.push({ value: d.literal, percent: false, raw: d.literal });
        continue;
      }
      // Korean composite: 1억 2천만 → segments with strictly decreasing big units, summed.
      const u = readUnits(t, i);
      let value = d.value * u.mult;
      i = u.end;
      let lastBig = u.big;
      while (lastBig > 1) {
        let j = i;
        if (j < t.length && t.charCodeAt(j) === 0x20) j++;
        if (!isDigit(t.charCodeAt(j))) break;
        const next = readDigits(t, j);
        if (next.value === undefined) break;
        const nu = readUnits(t, next.end);
        if (nu.end === next.end || nu.big >= lastBig) break; // a separate number, not the next segment
        value += next.value * nu.mult;
        i = nu.end;
        lastBig = nu.big;
      }
      const p = percentAt(t, i);
      if (p !== undefined) i = p;
      out.push({ value: canonicalNumber(value), percent: p !== undefined, raw: t.slice(start, i) });
      continue;
    }
    if (isHangulSyllable(c) && (i === 0 || !isHangulSyllable(t.charCodeAt(i - 1)))) {
      const { word, end } = hangulWord(t, i);
      const found = hangulNumber(t, word, i, end);
      if (found) out.push(found);
      i = end;
      continue;
    }
    i++;
  }
  return out;
}

/** Syllables of Sino-Korean numerals, and the longest numeral tried (이천이십사억 …: 32 is ample). */
const NUMERAL_SYLLABLE = new Set([...Object.keys(SINO_DIGITS), ...Object.keys(SMALL_UNITS), ...Object.keys(BIG_UNITS)]);
const SINO_MAX = 32;

/** Single-syllable counters that may be glued to a native numeral (‘한번’, ‘두개’); others would misread words such as 한일 or 세일. */
const GLUED_SHORT = new Set(['개', '명', '번']);

/** A Hangul numeral word at `start`…`end` of `t` followed by a counter (glued to it or after a space). */
function hangulNumber(t: string, word: string, start: number, end: number): FoundNumber | undefined {
  // Native numeral + counter: "세 가지", "두 번", "열 개", or glued "세가지".
  for (let k = Math.min(word.length, 2); k >= 1; k--) {
    const native = NATIVE[word.slice(0, k)];
    if (native === undefined) continue;
    const rest = word.slice(k);
    const counted = rest ? isCounterWord(rest) && (rest.length >= 2 || GLUED_SHORT.has(rest.charAt(0))) && !PARTICLES.has(rest) : counterFollows(t, end);
    if (counted) return { value: String(native), percent: false, raw: t.slice(start, end) };
  }
  // Sino-Korean numeral + counter: "삼십 개", "이천 년", "오십퍼센트". Only the leading run of numeral
  // syllables (at most SINO_MAX long: a well-formed numeral is shorter) is tried, so a long word costs O(SINO_MAX²).
  let run = 0;
  while (run < word.length && run < SINO_MAX && NUMERAL_SYLLABLE.has(word.charAt(run))) run++;
  for (let k = run; k >= 2; k--) {
    const value = sinoKoreanValue(word.slice(0, k));
    if (value === undefined) continue;
    const rest = word.slice(k);
    const percent = ['퍼센트', '프로'].some((w) => rest.startsWith(w) && PARTICLES.has(rest.slice(w.length)));
    const counted = rest ? percent || isCounterWord(rest) : counterFollows(t, end) || percentFollows(t, end);
    return counted ? { value: canonicalNumber(value), percent: percent || (!rest && percentFollows(t, end)), raw: t.slice(start, end) } : undefined;
  }
  // A lone unit syllable before a counter after a space: "백 명" = 100, "천 년" = 1000. Only spaced:
  // glued, such syllables start ordinary words (조명, 만일, 십분).
  const unit = word.length === 1 ? (SMALL_UNITS[word] ?? BIG_UNITS[word]) : undefined;
  if (unit !== undefined && (counterFollows(t, end) || percentFollows(t, end))) {
    return { value: String(unit), percent: percentFollows(t, end), raw: word };
  }
  return undefined;
}

function percentFollows(t: string, i: number): boolean {
  return t.charCodeAt(i) === 0x20 && (t.startsWith('퍼센트', i + 1) || t.startsWith('프로', i + 1) || t.charAt(i + 1) === '%');
}

/**
 * The numbers of `card` (its texts) that have no equal in `evidence`: same canonical value, and a
 * percentage only matched by a percentage. Empty when every number is backed.
 */
export function unbackedNumbers(card: readonly string[], evidence: readonly string[]): FoundNumber[] {
  const have = new Set<string>();
  for (const e of evidence) for (const n of findNumbers(e)) have.add(`${n.percent ? '%' : ''}${n.value}`);
  const missing: FoundNumber[] = [];
  for (const text of card) {
    for (const n of findNumbers(text)) if (!have.has(`${n.percent ? '%' : ''}${n.value}`)) missing.push(n);
  }
  return missing;
}
