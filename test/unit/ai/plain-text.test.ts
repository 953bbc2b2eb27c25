/**
 * The linear scanners of the local runtime (src/ai/plain-text.ts) follow the rules of the regular
 * expressions they replace: checked on seeded random strings over the characters those rules care
 * about, then on the adversarial inputs that made the expressions quadratic.
 */
import { headingContent, splitSentences, stripEmphasis, stripLinks, stripTags, trimEndWhere } from '../../../src/ai/plain-text';
import { prng } from '../../support/seeded';

/** The expressions the scanners replaced, as they were. */
const REFERENCE = {
  links: (s: string) => s.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'),
  tags: (s: string) => s.replace(/<[^>\n]+>/g, ' '),
  emphasis: (s: string) => s.replace(/(\*{1,3}|_{2,3})(\S(?:.*?\S)?)\1/g, '$2'),
  sentences: (s: string) =>
    s
      .split(/(?<=[.!?。！？]["')\]]*)\s+(?=\S)/u)
      .map((t) => t.trim())
      .filter(Boolean),
  heading: (line: string) => /^\s{0,3}(#{1,6})\s*(.*?)\s*#*\s*$/.exec(line)?.[2],
};

function randomStrings(seed: number, alphabet: string[], count: number, maxLength: number): string[] {
  const rnd = prng(seed);
  return Array.from({ length: count }, () => {
    const n = Math.floor(rnd() * maxLength);
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    return s;
  });
}

describe('scanners agree with the expressions they replace (4,000 seeded random strings each)', () => {
  test('images and links', () => {
    for (const s of randomStrings(1, ['!', '[', ']', '(', ')', 'a', ' ', 'b'], 4000, 24)) expect([s, stripLinks(s)]).toEqual([s, REFERENCE.links(s)]);
  });

  test('HTML-like tags', () => {
    for (const s of randomStrings(2, ['<', '>', '\n', 'a', ' ', '/'], 4000, 24)) expect([s, stripTags(s)]).toEqual([s, REFERENCE.tags(s)]);
  });

  test('emphasis', () => {
    for (const s of randomStrings(3, ['*', '_', 'a', ' ', 'b', '\u2028', '😀'], 8000, 24)) expect([s, stripEmphasis(s)]).toEqual([s, REFERENCE.emphasis(s)]);
  });

  test('sentences', () => {
    for (const s of randomStrings(4, ['.', '!', '?', '。', '"', ')', ']', "'", ' ', '\n', 'a', '가'], 4000, 24)) {
      expect([s, splitSentences(s)]).toEqual([s, REFERENCE.sentences(s)]);
    }
  });

  test('heading text', () => {
    for (const s of randomStrings(5, ['#', ' ', '\t', 'a', 'b'], 4000, 16)) {
      const line = `#${s}`;
      const m = /^\s{0,3}#{1,6}/.exec(line);
      expect([line, headingContent(line.slice(m?.[0].length ?? 0))]).toEqual([line, REFERENCE.heading(line)]);
    }
  });

  test('trimEndWhere drops only the trailing run', () => {
    const space = (c: number) => c === 0x20;
    expect(trimEndWhere('a b  ', space)).toBe('a b');
    expect(trimEndWhere('   ', space)).toBe('');
    expect(trimEndWhere('ab', space)).toBe('ab');
  });
});

/** Long strings compared without printing them whole on a failure. */
const brief = (s: string) => ({ length: s.length, head: s.slice(0, 40), tail: s.slice(-40) });
function same(actual: string, expected: string): void {
  expect(brief(actual)).toEqual(brief(expected));
  expect(actual === expected).toBe(true);
}

describe('adversarial inputs of 100,000 characters give the expected output', () => {
  test('unclosed image and link openers are left as they are', () => {
    same(stripLinks('!['.repeat(50_000)), '!['.repeat(50_000));
    same(stripLinks('['.repeat(100_000)), '['.repeat(100_000));
    expect(stripLinks(']('.repeat(50_000))).toBe(']('.repeat(50_000));
    expect(stripLinks('[a]('.repeat(25_000))).toBe('[a]('.repeat(25_000));
  });

  test('a real link after 100,000 openers is still found', () => {
    same(stripLinks(`${'['.repeat(100_000)}text](https://example.com) after`), `${'['.repeat(99_999)}text after`);
    same(stripLinks(`${'!['.repeat(50_000)}alt](x.png)`), `${'!['.repeat(49_999)}alt`);
  });

  test('unclosed tags and emphasis are left as they are', () => {
    same(stripTags('<'.repeat(100_000)), '<'.repeat(100_000));
    same(stripTags(`${'<a\n'.repeat(33_000)}<b>`), `${'<a\n'.repeat(33_000)} `);
    same(stripEmphasis('*a '.repeat(33_000)), '*a '.repeat(33_000));
  });

  test('runs of 100,000 delimiters pair up as the expression did (it is fast on these: each closer is near)', () => {
    same(stripEmphasis('*'.repeat(100_000)), REFERENCE.emphasis('*'.repeat(100_000)));
    same(stripEmphasis('_'.repeat(100_000)), REFERENCE.emphasis('_'.repeat(100_000)));
    same(stripEmphasis(`**${'a'.repeat(100_000)}**`), 'a'.repeat(100_000));
  });

  test('sentence splitting over long runs of closers and quotes', () => {
    const text = `a.${'"'.repeat(100_000)} b`;
    expect(splitSentences(text)).toEqual([`a.${'"'.repeat(100_000)}`, 'b']);
    expect(splitSentences('. '.repeat(50_000))).toHaveLength(50_000);
  });
});
