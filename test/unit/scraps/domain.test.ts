import { isBlankText, trimBlank, VISIBLE_TEXT_PATTERN } from '../../../src/core/blank';
import { contentHash, normaliseContent, normaliseTitle } from '../../../src/domain/scraps/scrap';
import { prng } from '../../support/seeded';
import { formatCauseChain, MAX_CAUSE_CHAIN_CHARS, storableText } from '../../../src/core/cause-chain';
import { jobWorkflowId, taskQueues } from '../../../src/core/contracts';

describe('SAN-7 normalisation and hashing', () => {
  it('turns CRLF and lone CR into LF and trims', () => {
    expect(normaliseContent('  \r\nline one\r\nline two\rline three \n\t')).toBe('line one\nline two\nline three');
  });
  it('keeps inner whitespace and Korean text as is', () => {
    expect(normaliseContent('운영체제  스케줄링\n\n  들여쓰기')).toBe('운영체제  스케줄링\n\n  들여쓰기');
  });
  it('hashes the normalised text as SHA-256 hex', () => {
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(contentHash(normaliseContent('x\r\n'))).toBe(contentHash(normaliseContent(' x')));
    expect(contentHash('x')).not.toBe(contentHash('X'));
  });
});

describe('SAN-7 Unicode normalisation', () => {
  const INVISIBLE = ['\u0085', '\u2028', '\u2029', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00a0', '\u3000', '\u00ad', '\u3164', '\u180e', '\u202e', '\ufe0f', '\t', ' ', '\n'];

  it('NFC and NFD of one text normalise to the same string and hash', () => {
    for (const text of ['naïve café', 'Ångström über Straße', '한국어 정규화', 'ḱṷṓn']) {
      expect(text.normalize('NFD')).not.toBe(text.normalize('NFC'));
      expect(normaliseContent(text.normalize('NFD'))).toBe(text.normalize('NFC'));
      expect(contentHash(normaliseContent(text.normalize('NFD')))).toBe(contentHash(normaliseContent(text.normalize('NFC'))));
    }
  });

  it.each(INVISIBLE.map((c) => [c.codePointAt(0)!.toString(16).padStart(4, '0'), c]))('U+%s alone (and repeated) is blank', (_hex, c) => {
    for (const text of [c, c.repeat(3), ` ${c}\r\n`]) {
      expect(isBlankText(text)).toBe(true);
      expect(VISIBLE_TEXT_PATTERN.test(text)).toBe(false);
      expect(normaliseContent(text)).toBe('');
    }
  });

  it('trims zero-width and format characters at both ends, keeps them inside', () => {
    expect(normaliseContent('\u200b\ufeff\u2060 hello\u200bworld \u200d\u200b\u2028')).toBe('hello\u200bworld');
    expect(normaliseContent('\u0085text\u0085')).toBe('text');
    expect(trimBlank('ab\u200d')).toBe('ab'); // a joiner that joins nothing
  });

  it("keeps a visible character's own marks at the ends (emoji presentation, flag tags, combining accents)", () => {
    expect(normaliseContent(' I \u2764\ufe0f ')).toBe('I \u2764\ufe0f');
    const england = '\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}';
    expect(normaliseContent(`${england}\u200b`)).toBe(england);
    expect(normaliseContent('\u200be\u0301')).toBe('\u00e9');
  });

  it('titles: NFC and trimmed the same way, inner text untouched', () => {
    expect(normaliseTitle('\u200b Cafe\u0301  notes\ufeff')).toBe('Café  notes');
  });

  it('the blank check and the normaliser agree on every text (seeded random mixes)', () => {
    const alphabet = [...INVISIBLE, 'a', '한', 'e\u0301', '\u2764\ufe0f', '\r', '\u{e0067}'];
    const rand = prng(7);
    for (let i = 0; i < 5000; i++) {
      let text = '';
      const n = Math.floor(rand() * 6);
      for (let j = 0; j < n; j++) text += alphabet[Math.floor(rand() * alphabet.length)];
      const normalised = normaliseContent(text);
      expect(isBlankText(text)).toBe(normalised === '');
      expect(VISIBLE_TEXT_PATTERN.test(text)).toBe(normalised !== '');
      expect(normaliseContent(normalised)).toBe(normalised); // idempotent
    }
  });
});


describe('cause chain', () => {
  it('lists the error and its causes outermost first, with failure types', () => {
    const root = Object.assign(new Error('model answered invalid JSON'), { name: 'ApplicationFailure', type: 'AI_MALFORMED_OUTPUT' });
    const mid = new Error('Activity task failed', { cause: root });
    mid.name = 'ActivityFailure';
    expect(formatCauseChain(mid)).toBe('ActivityFailure: Activity task failed <- ApplicationFailure[AI_MALFORMED_OUTPUT]: model answered invalid JSON');
  });
  it('survives cycles, non-errors and huge messages', () => {
    const a = new Error('a');
    (a as { cause?: unknown }).cause = a;
    expect(formatCauseChain(a)).toBe('Error: a');
    expect(formatCauseChain('boom')).toBe('boom');
    expect(formatCauseChain(new Error('x'.repeat(10_000))).length).toBe(MAX_CAUSE_CHAIN_CHARS);
  });
  it('is always storable: NUL and lone surrogates replaced, cut by code point', () => {
    expect(formatCauseChain(new Error('bad \u0000 and \ud800 here'))).toBe('Error: bad \ufffd and \ufffd here');
    // 'Error: ' is 7 code units; the cut falls where a pair would be split by code units.
    const emoji = formatCauseChain(new Error(`${'x'.repeat(MAX_CAUSE_CHAIN_CHARS - 9)}${'😀'.repeat(10)}`));
    expect(emoji.isWellFormed()).toBe(true);
    expect(Array.from(emoji)).toHaveLength(MAX_CAUSE_CHAIN_CHARS);
    expect(emoji.endsWith('😀…')).toBe(true);
    expect(storableText('ok', 10)).toBe('ok');
    expect(storableText('😀😀😀', 2)).toBe('😀…');
  });
});

describe('DC-1 workflow ids and DC-2 task queues', () => {
  it('derives workflow ids from job type and target', () => {
    expect(jobWorkflowId('CARD_ANALYSIS', 'abc')).toBe('card-analysis:abc');
    expect(jobWorkflowId('GITHUB_STAR_RECOMMENDATION', 'u1')).toBe('github-star-recommendation:u1');
  });
  it('prefixes task queues', () => {
    expect(taskQueues('t1-')).toEqual({ jobs: 't1-jobs', ai: 't1-ai', github: 't1-github' });
  });
});
