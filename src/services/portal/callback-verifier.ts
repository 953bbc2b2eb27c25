/**
 * PO-5 the callback route's signature check (src/crypto/callback-signature.ts `verify`) over the
 * configured secrets (PORTAL_CALLBACK_SECRETS: every secret verifies, so two are accepted during a
 * rotation) and tolerance (PORTAL_CALLBACK_TOLERANCE_SECONDS, both directions).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { PortalConfig as Config } from '../../config/portal';
import { verify, type SignatureRejection } from '../../crypto/callback-signature';

/** Why a signature was refused. */
export type CallbackSignatureRejection = SignatureRejection;

/** A verifier of (headers, raw body, now in Unix seconds). */
export type CallbackSignatureVerifier = (headers: IncomingHttpHeaders, rawBody: Buffer, nowSeconds: number) => { ok: true } | { ok: false; reason: CallbackSignatureRejection };

/** The verifier of `config.portal`. */
export function verifyCallbackSignature(config: Config): CallbackSignatureVerifier {
  const { callbackSecrets, callbackToleranceSeconds } = config.portal;
  return (headers, rawBody, nowSeconds) => verify(callbackSecrets, headers, rawBody, nowSeconds, callbackToleranceSeconds);
}
