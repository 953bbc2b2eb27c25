/**
 * PO-5 the callback route's signature check over the configured secrets (PORTAL_CALLBACK_SECRETS:
 * every secret verifies, so two are accepted during a rotation) and tolerance.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config';

/** Why a signature was refused. */
export type CallbackSignatureRejection = 'missing' | 'malformed' | 'stale' | 'bad-signature';

/** A verifier of (headers, raw body, now in Unix seconds). */
export type CallbackSignatureVerifier = (headers: IncomingHttpHeaders, rawBody: Buffer, nowSeconds: number) => { ok: true } | { ok: false; reason: CallbackSignatureRejection };

/** The verifier of `config.portal` (secrets, tolerance in both directions). */
export function verifyCallbackSignature(config: Config): CallbackSignatureVerifier {
  const secrets = config.portal.callbackSecrets;
  const tolerance = config.portal.callbackToleranceSeconds;
  return (headers, rawBody, nowSeconds) => {
    const ts = headers['x-timestamp'];
    const sig = headers['x-signature'];
    if (ts === undefined || sig === undefined) return { ok: false, reason: 'missing' };
    if (typeof ts !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(ts)) return { ok: false, reason: 'malformed' };
    const m = /^sha256=([0-9a-f]{64})$/.exec(sig);
    if (!m) return { ok: false, reason: 'malformed' };
    if (Math.abs(nowSeconds - Number(ts)) > tolerance) return { ok: false, reason: 'stale' };
    const given = Buffer.from(m[1]!, 'hex');
    for (const secret of secrets) {
      const want = createHmac('sha256', secret).update(`${ts}.`).update(rawBody).digest();
      if (want.length === given.length && timingSafeEqual(want, given)) return { ok: true };
    }
    return { ok: false, reason: 'bad-signature' };
  };
}
