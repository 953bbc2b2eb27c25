/**
 * Negation of English and Korean statements (a false statement made from a true one).
 * Part of the extractive toolkit; no I/O.
 */
import { isSpaceCode } from '../../core/text';
import { trimEndWhere } from '../plain-text';
import { finalConsonant, HANGUL_CHAR_RE, jong } from './hangul';

/** A negated (or, when already negative, affirmed) English statement, or undefined when no pattern applies. */
export function negateEnglish(s: string): string | undefined {
  const negative = /\b(is|are|was|were|can|will|should|must|does|do|did|has|have|may|could|would)\s+not\b/i.exec(s);
  if (negative) return s.replace(negative[0], negative[1] ?? '');
  if (/\bcannot\b/i.test(s)) return s.replace(/\b(c)annot\b/i, '$1an');
  const never = /\bnever\b/i.exec(s);
  if (never) return s.replace(/\bnever\b/i, (w) => (w[0] === 'N' ? 'Always' : 'always'));
  for (const aux of [/\b(is|are|was|were|will|should|must|may|could|would)\b/i, /\b(has|have|does|do|did)\b(?=\s+\p{L}+(?:ed|en|n)\b)/iu]) {
    const m = aux.exec(s);
    if (m) return `${s.slice(0, m.index + m[0].length)} not${s.slice(m.index + m[0].length)}`;
  }
  const can = /\bcan\b/i.exec(s);
  if (can) return `${s.slice(0, can.index)}${can[0]}not${s.slice(can.index + can[0].length)}`;
  return undefined;
}

/** Jongseong indices used below (ㄴ, ㅂ, ㅆ) and Hangul syllable helpers. */
export const JONG_NIEUN = 4;
export const JONG_BIEUP = 17;
export const JONG_SSANG_SIOT = 20;

export function withoutJong(ch: string): string {
  const c = ch.charCodeAt(0) - 0xac00;
  return String.fromCharCode(0xac00 + c - (c % 28));
}

/** Past-tense syllables and the stem ending they stand for (했 → 하, 었 → nothing). */
export const PAST_STEMS: Record<string, string> = { 했: '하', 됐: '되', 었: '', 았: '' };
/** `…ㄴ다` forms of ㄹ-stem verbs, whose ㄹ drops before ㄴ (만든다 → 만들-, 썬다 → 썰-). */
export const RIEUL_DROPPED: Record<string, string> = {
  든: '들', 연: '열', 푼: '풀', 판: '팔', 운: '울', 민: '밀', 분: '불', 논: '놀', 건: '걸', 번: '벌', 단: '달', 썬: '썰',
};

/**
 * The last Hangul run of `s` when only an optional `.!。` and white space follow it (the rules of
 * `/(\p{Script=Hangul}+)([.!。]?)\s*$/u`, scanned from the end): the run, what precedes it and the
 * punctuation; undefined when `s` does not end that way.
 */
export function finalHangulWord(s: string): { word: string; head: string; end: string } | undefined {
  let i = trimEndWhere(s, isSpaceCode).length;
  const punct = s.charAt(i - 1);
  const end = punct === '.' || punct === '!' || punct === '。' ? punct : '';
  i -= end.length;
  const wordEnd = i;
  while (i > 0 && HANGUL_CHAR_RE.test(s.charAt(i - 1))) i--;
  if (i === wordEnd) return undefined;
  return { word: s.slice(i, wordEnd), head: s.slice(0, i), end };
}

/** Negates the final predicate of a Korean declarative sentence (`…한다.` → `…하지 않는다.`), or undefined. */
export function negateKorean(s: string): string | undefined {
  const m = finalHangulWord(s);
  if (!m) return undefined;
  const { word, head, end } = m;
  const swap = (w: string) => `${head}${w}${end}`;
  if (/(?:않는다|않다|않았다|않습니다|못한다|아니다)$/u.test(word)) return undefined;
  const pairs: [string, string][] = [['있습니다', '없습니다'], ['없습니다', '있습니다'], ['있다', '없다'], ['없다', '있다']];
  for (const [from, to] of pairs) if (word.endsWith(from)) return swap(word.slice(0, -from.length) + to);
  if (word.endsWith('이다') && word.length > 2) {
    const noun = word.slice(0, -2);
    return swap(`${noun}${finalConsonant(noun).any ? '이' : '가'} 아니다`);
  }
  if (word.endsWith('는다') && word.length > 2) return swap(`${word.slice(0, -2)}지 않는다`);
  if (word.endsWith('습니다') && word.length > 3) {
    const before = word.charAt(word.length - 4);
    const past = PAST_STEMS[before];
    if (past !== undefined) return swap(`${word.slice(0, -4)}${past}지 않았습니다`);
    return swap(`${word.slice(0, -3)}지 않습니다`);
  }
  if (word.endsWith('니다') && word.length > 2 && jong(word.charAt(word.length - 3)) === JONG_BIEUP) {
    return swap(`${word.slice(0, -3)}${withoutJong(word.charAt(word.length - 3))}지 않습니다`);
  }
  if (!word.endsWith('다') || word.length < 2) return undefined;
  const last = word.charAt(word.length - 2);
  const stemHead = word.slice(0, -2);
  if (jong(last) === JONG_NIEUN) return swap(`${stemHead}${RIEUL_DROPPED[last] ?? withoutJong(last)}지 않는다`);
  if (jong(last) === JONG_SSANG_SIOT) {
    const past = PAST_STEMS[last];
    return past !== undefined && (past || stemHead) ? swap(`${stemHead}${past}지 않았다`) : undefined;
  }
  return swap(`${word.slice(0, -1)}지 않다`);
}
