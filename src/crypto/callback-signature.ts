/**
 * PO-5/PO-7 signed callbacks: `X-Signature: sha256=<hex>` is HMAC-SHA256(secret, X-Timestamp + "." +
 * raw body bytes), X-Timestamp the unix time in decimal seconds. The signer uses the first secret of
 * the configured list; the verifier accepts any of them (two during a rotation), compares in
 * constant time and rejects a timestamp outside the tolerance in either direction (a timestamp in
 * the future is as stale as one in the past). The raw bytes are signed, never re-serialised JSON:
 * another key order or whitespace is another message. Pure (node:crypto only), names no family.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a signed callback (lower case, as Node and fastify present them). */
export const CALLBACK_HEADERS = {
  timestamp: 'x-timestamp',
  signature: 'x-signature',
  attempt: 'x-callback-attempt',
  requestId: 'x-request-id',
} as const;

/** Why {@link verify} rejected a callback (all are 401 at the API). */
export type SignatureRejection = 'missing' | 'malformed' | 'stale' | 'bad-signature';

/** Outcome of {@link verify}: accepted with the timestamp and the index of the secret that matched, or the reason. */
export type SignatureVerification =
  | { ok: true; timestamp: number; secretIndex: number }
  | { ok: false; reason: SignatureRejection };

/** Request headers as Node gives them (lower-case names; a repeated header is an array). */
export type CallbackHeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

const SIGNATURE_PREFIX = 'sha256=';
const SIGNATURE_RE = /^sha256=[0-9a-fA-F]{64}$/;
/** Decimal unix seconds, no sign, no fraction; at most 15 digits (a millisecond clock by mistake still parses, and is stale). */
const TIMESTAMP_RE = /^[0-9]{1,15}$/;

function toBytes(body: Buffer | Uint8Array | string): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function mac(secret: string, timestamp: string, rawBody: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

/**
 * PO-5 the `X-Signature` value for `rawBody` sent with `X-Timestamp: timestamp`: `sha256=<64 hex>`.
 * @param timestamp unix seconds (an integer, or the exact header text).
 * @throws RangeError when the secret is empty or the timestamp is not decimal unix seconds.
 */
export function sign(secret: string, timestamp: number | string, rawBody: Buffer | Uint8Array | string): string {
  if (secret.length === 0) throw new RangeError('callback secret is empty');
  const ts = String(timestamp);
  if (!TIMESTAMP_RE.test(ts)) throw new RangeError(`timestamp must be decimal unix seconds, got ${ts}`);
  return SIGNATURE_PREFIX + mac(secret, ts, toBytes(rawBody)).toString('hex');
}

/** Options of {@link signedCallbackHeaders}. */
export interface SignedHeadersOptions {
  /** Unix seconds; default now. */
  nowSeconds?: number;
  /** The activity attempt, sent as X-Callback-Attempt. */
  attempt?: number;
  /** Opaque id sent as X-Request-Id. */
  requestId?: string;
}

/**
 * The headers of a signed JSON callback: content-type, X-Timestamp, X-Signature and, when given,
 * X-Callback-Attempt and X-Request-Id. Sign with the FIRST configured secret.
 * @throws RangeError as {@link sign}.
 */
export function signedCallbackHeaders(
  secret: string,
  rawBody: Buffer | Uint8Array | string,
  opts: SignedHeadersOptions = {},
): Record<string, string> {
  const ts = String(Math.floor(opts.nowSeconds ?? Date.now() / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [CALLBACK_HEADERS.timestamp]: ts,
    [CALLBACK_HEADERS.signature]: sign(secret, ts, rawBody),
  };
  if (opts.attempt !== undefined) headers[CALLBACK_HEADERS.attempt] = String(opts.attempt);
  if (opts.requestId !== undefined) headers[CALLBACK_HEADERS.requestId] = opts.requestId;
  return headers;
}

function single(value: string | readonly string[] | undefined): string | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  return value.length === 1 ? value[0] : null; // a repeated header is ambiguous: malformed
}

/**
 * PO-5/PO-7 verifies a callback's `X-Timestamp` / `X-Signature` over the raw body bytes.
 * Checks in order: both headers present (`missing`), well-formed (`malformed`: timestamp not
 * decimal seconds, signature not `sha256=<64 hex>`, a header repeated), within `toleranceSeconds`
 * of `nowSeconds` in either direction (`stale`), then HMAC against every secret in constant time
 * (`bad-signature` when none matches; every secret is tried, so the timing does not tell which).
 * @param secrets the configured secrets (PORTAL_CALLBACK_SECRETS); empty → every callback is rejected.
 * @param nowSeconds the verifier's clock, unix seconds.
 */
export function verify(
  secrets: readonly string[],
  headers: CallbackHeaderBag,
  rawBody: Buffer | Uint8Array | string,
  nowSeconds: number,
  toleranceSeconds: number,
): SignatureVerification {
  const ts = single(headers[CALLBACK_HEADERS.timestamp]);
  const sig = single(headers[CALLBACK_HEADERS.signature]);
  if (ts === undefined || sig === undefined || ts === '' || sig === '') return { ok: false, reason: 'missing' };
  if (ts === null || sig === null || !TIMESTAMP_RE.test(ts) || !SIGNATURE_RE.test(sig)) {
    return { ok: false, reason: 'malformed' };
  }
  const timestamp = Number(ts);
  if (!(Math.abs(nowSeconds - timestamp) <= toleranceSeconds)) return { ok: false, reason: 'stale' };

  const given = Buffer.from(sig.slice(SIGNATURE_PREFIX.length), 'hex'); // 32 bytes: the pattern checked 64 hex digits
  const body = toBytes(rawBody);
  let matched = -1;
  secrets.forEach((secret, index) => {
    if (secret.length === 0) return;
    const expected = mac(secret, ts, body);
    if (timingSafeEqual(expected, given) && matched < 0) matched = index;
  });
  return matched >= 0 ? { ok: true, timestamp, secretIndex: matched } : { ok: false, reason: 'bad-signature' };
}
