/** Code-point and grapheme-safe cutting (src/core/text.ts): no cut ever leaves a lone surrogate. */
import { clipText, codePointBoundary, cutCodePoints, cutGraphemes, cutToLength, graphemeBoundary, shortName } from '../../../src/core/text';

const GRIN = '😀'; // U+1F600: two UTF-16 code units
const FAMILY = '👩‍👩‍👧'; // woman ZWJ woman ZWJ girl: 8 code units, one grapheme
const FLAG_KR = '🇰🇷'; // two regional indicators: 4 code units, one grapheme
const E_ACUTE = 'e\u0301'; // e + combining acute: 2 code units, one grapheme
const HANGUL_JAMO = '\u1100\u1161\u11a8'; // 각 as conjoining jamo: 3 code units, one grapheme

describe('codePointBoundary and cutToLength (UTF-16 length bound, code point safe)', () => {
  test('a cut between the halves of a surrogate pair moves back one unit', () => {
    const s = GRIN.repeat(3);
    expect(codePointBoundary(s, 1)).toBe(0);
    expect(codePointBoundary(s, 2)).toBe(2);
    expect(codePointBoundary(s, 3)).toBe(2);
    expect(codePointBoundary(s, -5)).toBe(0);
    expect(codePointBoundary(s, 99)).toBe(6);
  });

  test.each([0, 1, 2, 3, 59, 60, 61, 119, 120, 121, 122, 200])('61 × 😀 cut to %i units: well-formed, within the bound, the longest such prefix', (max) => {
    const s = GRIN.repeat(61);
    const cut = cutToLength(s, max);
    expect(cut.isWellFormed()).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(max);
    expect(cut.length).toBe(Math.min(s.length, max - (max % 2)));
    expect(s.startsWith(cut)).toBe(true);
  });

  test('text that fits is returned as is; a lone surrogate already in the input is not invented or removed', () => {
    expect(cutToLength('abc', 3)).toBe('abc');
    expect(cutToLength('abc', 10)).toBe('abc');
    expect(cutToLength('ab\ud800c', 3)).toBe('ab\ud800');
  });
});

describe('cutCodePoints (code point count)', () => {
  test('counts astral characters once and never splits them', () => {
    const s = `a${GRIN}b${GRIN}`;
    expect(cutCodePoints(s, 0)).toBe('');
    expect(cutCodePoints(s, 2)).toBe(`a${GRIN}`);
    expect(cutCodePoints(s, 3)).toBe(`a${GRIN}b`);
    expect(cutCodePoints(s, 4)).toBe(s);
    expect(cutCodePoints('한국어', 2)).toBe('한국');
  });
});

describe('graphemeBoundary and cutGraphemes', () => {
  test.each([
    ['ZWJ family', FAMILY],
    ['flag', FLAG_KR],
    ['combining mark', E_ACUTE],
    ['conjoining jamo', HANGUL_JAMO],
    ['emoji', GRIN],
  ])('%s: a cut anywhere inside a cluster keeps or drops the whole cluster', (_name, cluster) => {
    const s = `ab${cluster}${cluster}cd`;
    for (let max = 0; max <= s.length; max++) {
      const cut = cutGraphemes(s, max);
      expect(cut.isWellFormed()).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(max);
      // The kept part ends between clusters: a whole number of letters and clusters.
      expect(['', 'a', 'ab', `ab${cluster}`, `ab${cluster}${cluster}`, `ab${cluster}${cluster}c`, s]).toContain(cut);
    }
  });

  test('looks only at a bounded window: a cut deep inside a long string is as correct as one near its start', () => {
    const s = `${'x'.repeat(200_000)}${FAMILY}y`;
    expect(graphemeBoundary(s, 200_003)).toBe(200_000);
    expect(cutGraphemes(s, 200_008)).toBe(`${'x'.repeat(200_000)}${FAMILY}`);
  });
});

describe('clipText', () => {
  test('text within the limit comes back trimmed and unchanged', () => {
    expect(clipText('  short title  ', 120)).toBe('short title');
  });

  test('61 × 😀 clipped to 120: well-formed, ≤ 120 units, ends with the ellipsis after whole emoji', () => {
    const out = clipText(GRIN.repeat(61), 120);
    expect(out.isWellFormed()).toBe(true);
    expect(out.length).toBeLessThanOrEqual(120);
    expect(out).toBe(`${GRIN.repeat(59)}…`);
  });

  test('prefers the last word boundary in the last 40 % and drops trailing punctuation before the ellipsis', () => {
    expect(clipText('alpha beta gamma, delta epsilon', 20)).toBe('alpha beta gamma…');
    expect(clipText('abcdefghijklmnopqrstuvwxyz', 10)).toBe('abcdefghi…');
  });

  test('never cuts inside a grapheme cluster, whatever the limit', () => {
    const s = `${'가나다 '.repeat(3)}${FAMILY.repeat(4)} ${FLAG_KR.repeat(4)} ${E_ACUTE.repeat(4)}`;
    for (let max = 1; max <= s.length + 1; max++) {
      const out = clipText(s, max);
      expect(out.isWellFormed()).toBe(true);
      expect(out.length).toBeLessThanOrEqual(max);
      const body = out.endsWith('…') && out.length < s.length ? out.slice(0, -1) : out;
      expect(s.startsWith(body)).toBe(true);
      expect(cutGraphemes(s, body.length)).toBe(body);
    }
  });

  test('a custom ellipsis counts toward the limit; a limit shorter than the ellipsis cuts without one', () => {
    expect(clipText('abcdefghij', 8, '...')).toBe('abcde...');
    expect(clipText(GRIN.repeat(5), 2, '...')).toBe(GRIN);
    expect(clipText('abc', 0)).toBe('');
  });
});

describe('shortName (a client-supplied name in a message)', () => {
  test('keeps 64 code points, then cuts with an ellipsis, never inside a surrogate pair', () => {
    expect(shortName(GRIN.repeat(64))).toBe(GRIN.repeat(64));
    expect(shortName(GRIN.repeat(65))).toBe(`${GRIN.repeat(64)}…`);
    expect(shortName('a'.repeat(70))).toBe(`${'a'.repeat(64)}…`);
    // A lone surrogate counts as one code point.
    expect(shortName(`${'a'.repeat(62)}\ud800${GRIN}`)).toBe(`${'a'.repeat(62)}\ud800${GRIN}`);
    expect(shortName(`${'a'.repeat(63)}\ud800${GRIN}`)).toBe(`${'a'.repeat(63)}\ud800…`);
  });
});
