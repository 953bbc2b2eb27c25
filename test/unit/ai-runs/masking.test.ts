/**
 * AR-6: what is stored of a request: masked text (phones, e-mails, RRNs, account numbers), cut by
 * code point, and a keyed HMAC-SHA256 hash, never a bare SHA-256.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { keyedInputHash, maskDeep, maskError, maskSensitive } from '../../../src/domain/ai-runs/masking';
import { findSensitive, sensitiveKinds } from '../../../src/domain/ai-runs/sensitive';

describe('maskSensitive', () => {
  it.each([
    ['my phone is 010-1234-5678', 'my phone is 010-****-****'],
    ['전화 01012345678 로 주세요', '전화 010******** 로 주세요'],
    ['+82 10-1234-5678', '+82 10-****-****'],
    ['office 02-123-4567', 'office 02-***-****'],
    ['mail kim.minji@example.com please', 'mail k***@example.com please'],
    ['주민번호 900101-1234567', '주민번호 ******-*******'],
    ['계좌 110-123-456789 (신한)', '계좌 ***-***-****** (신한)'],
    ['account 1002345678901', 'account *************'],
  ])('%s', (text, masked) => {
    expect(maskSensitive(text)).toBe(masked);
  });

  it('masks the issue example and keeps the rest', () => {
    const text = 'I need an employment certificate for my visa by Friday, my phone is 010-1234-5678';
    expect(maskSensitive(text)).toBe('I need an employment certificate for my visa by Friday, my phone is 010-****-****');
  });

  it('leaves dates, amounts and counts alone', () => {
    const text = '2026-12-05까지 35만원, ₩350,000, 3일간, 12/22-12/24, $1,200.50';
    expect(findSensitive(text)).toEqual([]);
    expect(maskSensitive(text)).toBe(text);
  });

  it('masks several items of different kinds', () => {
    const masked = maskSensitive('a@b.co, 010-1111-2222, 900101-2345678');
    expect(masked).toBe('a***@b.co, 010-****-****, ******-*******');
  });

  it('cuts by code point, never splitting a surrogate pair, with an ellipsis inside the limit', () => {
    const text = '휴가 신청 😀😀😀 감사합니다';
    for (let max = 1; max <= [...text].length + 1; max++) {
      const cut = maskSensitive(text, { maxCodePoints: max });
      expect([...cut].length).toBeLessThanOrEqual(max);
      expect(cut.isWellFormed()).toBe(true);
      if ([...text].length > max) expect(cut.endsWith('…')).toBe(true);
      else expect(cut).toBe(text);
    }
    expect(maskSensitive('ab😀cd', { maxCodePoints: 4 })).toBe('ab😀…');
  });

  it('masks before cutting: a number at the cut is never left half in the clear', () => {
    const cut = maskSensitive('call 010-1234-5678 now', { maxCodePoints: 15 });
    expect(cut).toBe('call 010-****-…');
    expect(cut).not.toMatch(/1234|5678/);
  });

  it('rejects a non-positive maxCodePoints', () => {
    expect(() => maskSensitive('x', { maxCodePoints: 0 })).toThrow(RangeError);
  });
});

describe('card numbers', () => {
  it.each([
    ['card 4111 1111 1111 1111 thanks', 'card **** **** **** **** thanks'],
    ['카드 5500-0000-0000-0004', '카드 ****-****-****-****'],
    ['amex 3782 822463 10005', 'amex **** ****** *****'],
    ['pan 4012888888881881', 'pan ****************'],
  ])('%s', (text, masked) => {
    expect(sensitiveKinds(text)).toEqual(['CARD_NUMBER']);
    expect(maskSensitive(text)).toBe(masked);
  });

  it('a digit run that fails the Luhn check is no card number', () => {
    expect(sensitiveKinds('4111 1111 1111 1112')).toEqual([]);
  });
});

describe('maskDeep and maskError', () => {
  it('masks every string at any depth and keeps keys, numbers and shapes', () => {
    const value = { newAddress: 'Seoul 12, call 010-1234-5678', period: { start: '2026-12-01', end: '2026-12-02' }, days: 3, notes: ['a@b.co', null] };
    expect(maskDeep(value)).toEqual({ newAddress: 'Seoul 12, call 010-****-****', period: { start: '2026-12-01', end: '2026-12-02' }, days: 3, notes: ['a***@b.co', null] });
    expect(value.newAddress).toBe('Seoul 12, call 010-1234-5678'); // a copy
  });

  it('masks the message and stack of an error and of its causes, names kept', () => {
    // JSON.parse quotes the start of a bad body, which may echo the input
    const parseError = new SyntaxError('Unexpected token \'c\', "call 010-1234-5678" is not valid JSON');
    const masked = maskError(new Error('malformed answer', { cause: parseError }))!;
    expect(masked.message).toBe('malformed answer');
    const cause = masked.cause as Error;
    expect(cause.name).toBe('SyntaxError');
    expect(`${cause.message} ${cause.stack ?? ''}`).not.toContain('1234-5678');
    expect(maskError('not an error')).toBeUndefined();
  });
});

describe('keyedInputHash', () => {
  const key = randomBytes(32);

  it('is HMAC-SHA256 hex of the UTF-8 text under the key', () => {
    const text = '재직증명서 부탁드립니다 😀';
    expect(keyedInputHash(key, text)).toBe(createHmac('sha256', key).update(Buffer.from(text, 'utf8')).digest('hex'));
    expect(keyedInputHash(key, text)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is not the bare SHA-256 and depends on the key', () => {
    const text = '연차';
    expect(keyedInputHash(key, text)).not.toBe(createHash('sha256').update(text).digest('hex'));
    expect(keyedInputHash(randomBytes(32), text)).not.toBe(keyedInputHash(key, text));
    expect(keyedInputHash(key, text)).toBe(keyedInputHash(Buffer.from(key), text));
  });

  it('rejects a short key', () => {
    expect(() => keyedInputHash(randomBytes(16), 'x')).toThrow(RangeError);
  });
});
