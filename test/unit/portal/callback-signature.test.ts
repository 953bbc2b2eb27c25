/** PO-5/PO-7 callback signatures: HMAC over timestamp + "." + raw bytes, tolerance both ways, rotation. */
import { createHmac } from 'node:crypto';
import { CALLBACK_HEADERS, sign, signedCallbackHeaders, verify } from '../../../src/crypto/callback-signature';

const SECRET = 'test-secret-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const NEXT = 'test-secret-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const NOW = 1_800_000_000;
const TOLERANCE = 300;
const BODY = Buffer.from('{"job_id":"7b0c6d1e-8d7f-4a55-9d2b-0c1f2e3d4a5b","status":"SUCCEEDED"}');

function headersFor(body: Buffer | string, ts: number | string, secret = SECRET): Record<string, string> {
  return { [CALLBACK_HEADERS.timestamp]: String(ts), [CALLBACK_HEADERS.signature]: sign(secret, ts, body) };
}

describe('sign', () => {
  it('is HMAC-SHA256 over "<timestamp>.<raw body>" as sha256=<hex>, the wire format receivers recompute', () => {
    const expected = createHmac('sha256', SECRET).update(Buffer.concat([Buffer.from(`${NOW}.`), BODY])).digest('hex');
    expect(sign(SECRET, NOW, BODY)).toBe(`sha256=${expected}`);
    expect(sign(SECRET, String(NOW), BODY.toString('utf8'))).toBe(`sha256=${expected}`);
  });

  it('refuses an empty secret and a timestamp that is not decimal seconds', () => {
    expect(() => sign('', NOW, BODY)).toThrow(RangeError);
    expect(() => sign(SECRET, '1.5', BODY)).toThrow(RangeError);
    expect(() => sign(SECRET, -1, BODY)).toThrow(RangeError);
  });

  it('signedCallbackHeaders carries timestamp, signature, attempt and request id that verify', () => {
    const h = signedCallbackHeaders(SECRET, BODY, { nowSeconds: NOW + 0.9, attempt: 3, requestId: 'req-1' });
    expect(h).toMatchObject({
      'content-type': 'application/json',
      'x-timestamp': String(NOW),
      'x-callback-attempt': '3',
      'x-request-id': 'req-1',
    });
    expect(verify([SECRET], h, BODY, NOW, TOLERANCE)).toEqual({ ok: true, timestamp: NOW, secretIndex: 0 });
  });
});

describe('verify', () => {
  it('accepts the exact bytes that were signed', () => {
    expect(verify([SECRET], headersFor(BODY, NOW), BODY, NOW, TOLERANCE)).toEqual({ ok: true, timestamp: NOW, secretIndex: 0 });
  });

  it('rejects a tampered body, another key order and other whitespace (raw bytes, not JSON)', () => {
    const h = headersFor(BODY, NOW);
    const tampered = Buffer.from(BODY.toString().replace('SUCCEEDED', 'FAILED'));
    const parsed = JSON.parse(BODY.toString()) as Record<string, unknown>;
    const reordered = Buffer.from(JSON.stringify({ status: parsed.status, job_id: parsed.job_id }));
    const spaced = Buffer.from(JSON.stringify(parsed, null, 1));
    for (const body of [tampered, reordered, spaced]) {
      expect(verify([SECRET], h, body, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'bad-signature' });
    }
  });

  it('rejects a signature made with another secret, or over another timestamp', () => {
    expect(verify([SECRET], headersFor(BODY, NOW, 'some-other-secret-cccccccccccccccccccc'), BODY, NOW, TOLERANCE)).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
    const h = { ...headersFor(BODY, NOW), [CALLBACK_HEADERS.timestamp]: String(NOW + 1) };
    expect(verify([SECRET], h, BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('accepts timestamps within the tolerance on both sides and rejects past it in both directions', () => {
    expect(verify([SECRET], headersFor(BODY, NOW - TOLERANCE), BODY, NOW, TOLERANCE).ok).toBe(true);
    expect(verify([SECRET], headersFor(BODY, NOW + TOLERANCE), BODY, NOW, TOLERANCE).ok).toBe(true);
    expect(verify([SECRET], headersFor(BODY, NOW - TOLERANCE - 1), BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'stale' });
    expect(verify([SECRET], headersFor(BODY, NOW + TOLERANCE + 1), BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'stale' });
    // a millisecond timestamp by mistake is far in the future: stale, not accepted
    expect(verify([SECRET], headersFor(BODY, NOW * 1000), BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'stale' });
  });

  it('accepts both secrets during a rotation and tells which one matched', () => {
    expect(verify([NEXT, SECRET], headersFor(BODY, NOW, SECRET), BODY, NOW, TOLERANCE)).toEqual({ ok: true, timestamp: NOW, secretIndex: 1 });
    expect(verify([NEXT, SECRET], headersFor(BODY, NOW, NEXT), BODY, NOW, TOLERANCE)).toEqual({ ok: true, timestamp: NOW, secretIndex: 0 });
    // after the rotation the retired secret does not verify
    expect(verify([NEXT], headersFor(BODY, NOW, SECRET), BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('rejects everything when no secret is configured', () => {
    expect(verify([], headersFor(BODY, NOW), BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verify([''], headersFor(BODY, NOW), BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('tells missing headers from malformed ones', () => {
    const good = headersFor(BODY, NOW);
    expect(verify([SECRET], {}, BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'missing' });
    expect(verify([SECRET], { 'x-timestamp': good['x-timestamp'] }, BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'missing' });
    expect(verify([SECRET], { 'x-signature': good['x-signature'] }, BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'missing' });
    expect(verify([SECRET], { ...good, 'x-signature': '' }, BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'missing' });

    const hex = good['x-signature']!.slice('sha256='.length);
    const malformed: Array<Record<string, string | string[]>> = [
      { ...good, 'x-timestamp': `${NOW}.0` },
      { ...good, 'x-timestamp': ` ${NOW}` },
      { ...good, 'x-timestamp': '-5' },
      { ...good, 'x-signature': hex },
      { ...good, 'x-signature': `sha1=${hex}` },
      { ...good, 'x-signature': `sha256=${hex.slice(2)}` },
      { ...good, 'x-signature': `sha256=${hex}00` },
      { ...good, 'x-signature': `sha256=${'z'.repeat(64)}` },
      { ...good, 'x-signature': [good['x-signature']!, good['x-signature']!] },
    ];
    for (const h of malformed) expect(verify([SECRET], h, BODY, NOW, TOLERANCE)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('accepts upper-case hex digits of the same signature', () => {
    const good = headersFor(BODY, NOW);
    const upper = `sha256=${good['x-signature']!.slice(7).toUpperCase()}`;
    expect(verify([SECRET], { ...good, 'x-signature': upper }, BODY, NOW, TOLERANCE).ok).toBe(true);
  });

  it('signs and verifies non-ASCII bodies as their UTF-8 bytes', () => {
    const body = Buffer.from('{"name":"김수원 😀"}', 'utf8');
    expect(verify([SECRET], headersFor(body, NOW), body.toString('utf8'), NOW, TOLERANCE).ok).toBe(true);
    expect(verify([SECRET], headersFor(body, NOW), new Uint8Array(body), NOW, TOLERANCE).ok).toBe(true);
  });
});
