/** Conditional-request and preference parsing of the long poll (src/api/conditional.ts). */
import { entityTag, ifNoneMatchIsWildcard, ifNoneMatchMatches, preferredWaitSeconds } from '../../../src/api/conditional';

describe('Prefer: wait (RFC 7240)', () => {
  test.each([
    ['wait=10', 10],
    ['WAIT=5', 5],
    ['respond-async, wait=30', 30],
    ['wait="7"', 7],
    ['return=minimal; foo=bar, wait=3; x=y', 3],
    ['wait=0', 0],
    [['handling=lenient', 'wait=12'], 12],
    ['wait=1, wait=9', 1],
  ] as const)('%j → %d', (header, seconds) => {
    expect(preferredWaitSeconds(header as string | string[])).toBe(seconds);
  });

  test.each([undefined, '', 'respond-async', 'wait', 'wait=', 'wait=-1', 'wait=1.5', 'wait=soon', 'wait=9999999999', 'waiting=3'])('%j is ignored', (header) => {
    expect(preferredWaitSeconds(header)).toBeUndefined();
  });
});

describe('If-None-Match (weak comparison)', () => {
  const etag = entityTag('PROCESSING.abc');
  test('matches the same tag, weak or strong, alone or in a list', () => {
    expect(etag).toBe('"PROCESSING.abc"');
    expect(ifNoneMatchMatches('"PROCESSING.abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('W/"PROCESSING.abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('"PENDING.abb", "PROCESSING.abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches(['"x"', '"PROCESSING.abc"'], etag)).toBe(true);
    expect(ifNoneMatchMatches('*', etag)).toBe(true);
  });
  test('does not match another tag, an unquoted one, or nothing', () => {
    expect(ifNoneMatchMatches('"PENDING.abb"', etag)).toBe(false);
    expect(ifNoneMatchMatches('PROCESSING.abc', etag)).toBe(false);
    expect(ifNoneMatchMatches('', etag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
  test('recognises the wildcard', () => {
    expect(ifNoneMatchIsWildcard('*')).toBe(true);
    expect(ifNoneMatchIsWildcard('"a", *')).toBe(true);
    expect(ifNoneMatchIsWildcard('"*"')).toBe(false);
    expect(ifNoneMatchIsWildcard(undefined)).toBe(false);
  });
});
