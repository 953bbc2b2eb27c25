/**
 * AR-6 Temporal payload encryption: a `PayloadCodec` (AES-256-GCM, a random 96-bit IV per payload,
 * the key id in the payload's metadata) applied by every Temporal client and worker of the project
 * through {@link temporalDataConverter}, so workflow inputs, results, activity arguments, heartbeat
 * details and memos are ciphertext in Temporal's history (search attributes are not payloads of the codec:
 * they stay readable, so they never carry sensitive values).
 *
 * Keys: `PAYLOAD_CODEC_KEYS=kid1:base64key,kid2:base64key` (32-byte keys); the FIRST key encrypts,
 * every listed key decrypts, so a key rotates by putting the new one first and keeping the old one
 * until no open history needs it. A payload without this codec's encoding (an unencrypted
 * history, or a client without the codec) decodes as it is (pass-through).
 *
 * Wire format (the one of Temporal's encryption samples, so their codec servers read it too):
 * metadata `encoding: binary/encrypted`, `encryption-key-id: <kid>`,
 * `encryption-cipher: AES-256-GCM`; data = IV (12 bytes) ‖ ciphertext ‖ GCM tag (16 bytes) of the
 * original `Payload` protobuf.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { parseKeyRing, type KeyRing } from './token-box';

/** `encoding` metadata value of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key id a payload was encrypted with. */
export const METADATA_KEY_ID = 'encryption-key-id';
/** Metadata key naming the cipher. */
export const METADATA_CIPHER = 'encryption-cipher';
const CIPHER_NAME = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Key id of the development key (never accepted in production, see config). */
export const DEV_PAYLOAD_KEY_ID = 'dev-payload';

/** Raised when a key spec is malformed or an encrypted payload cannot be decrypted (unknown key, tampering). */
export class PayloadCodecError extends Error {
  override readonly name = 'PayloadCodecError';
}

/**
 * Development-only key spec: a fixed key derived from a public string, so local runs work without
 * configuration. Anything encrypted with it is readable by anyone with this source code.
 */
export function devPayloadKeySpec(): string {
  const key = createHash('sha256').update('durable-jobs development temporal payload key').digest('base64');
  return `${DEV_PAYLOAD_KEY_ID}:${key}`;
}

/**
 * Parses `kid:base64key,…` (32-byte keys, ids `[A-Za-z0-9_-]{1,32}`); the first key encrypts.
 * @throws PayloadCodecError naming the offending entry.
 */
export function parsePayloadKeys(spec: string): KeyRing {
  const first = spec.split(',').map((s) => s.trim()).find(Boolean);
  const firstId = first?.slice(0, Math.max(0, first.indexOf(':')));
  try {
    return parseKeyRing(spec, firstId || undefined);
  } catch (err) {
    throw new PayloadCodecError((err as Error).message);
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

/** AES-256-GCM {@link PayloadCodec} over a key ring (see the module comment for the format). */
export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(private readonly ring: KeyRing) {}

  /** Id of the key new payloads are encrypted with. */
  get activeKeyId(): string {
    return this.ring.activeKeyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encryptOne(p));
  }

  /** @throws PayloadCodecError when a payload names an unknown key or does not verify. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decryptOne(p));
  }

  private encryptOne(payload: Payload): Payload {
    const kid = this.ring.activeKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.ring.keys.get(kid)!, iv, { authTagLength: TAG_BYTES });
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: utf8(ENCRYPTED_ENCODING), [METADATA_KEY_ID]: utf8(kid), [METADATA_CIPHER]: utf8(CIPHER_NAME) },
      data: new Uint8Array(data),
    };
  }

  private decryptOne(payload: Payload): Payload {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload; // not ours: pass-through
    const kid = text(payload.metadata?.[METADATA_KEY_ID]);
    const key = kid === undefined ? undefined : this.ring.keys.get(kid);
    if (!key) throw new PayloadCodecError(`encrypted payload names an unknown key id "${kid ?? ''}"`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadCodecError('encrypted payload is too short');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    } catch {
      throw new PayloadCodecError(`encrypted payload does not verify under key "${kid}"`);
    }
  }
}

/** The codec's section of the config. */
export interface PayloadCodecConfig {
  /** `kid:base64key,…` (PAYLOAD_CODEC_KEYS; the development key when unset outside production). */
  keys: string;
  /** True when {@link keys} is the development key (logged loudly at start-up). */
  devKey: boolean;
}

const codecs = new Map<string, AesGcmPayloadCodec>();
let warned = false;

/**
 * The payload codec configured by PAYLOAD_CODEC_KEYS (one instance per key spec and process).
 * Warns once per process (stderr) when the public development key is in use, except under tests.
 */
export function payloadCodecFromConfig(cfg: PayloadCodecConfig): AesGcmPayloadCodec {
  if (cfg.devKey && !warned && process.env.NODE_ENV !== 'test') {
    warned = true;
    process.emitWarning(
      'PAYLOAD_CODEC_KEYS is not set: Temporal payloads are encrypted with the PUBLIC development key. ' +
        'Anyone with this source code can read them. Set PAYLOAD_CODEC_KEYS (required when NODE_ENV=production).',
      { code: 'PAYLOAD_CODEC_DEV_KEY' },
    );
  }
  let codec = codecs.get(cfg.keys);
  if (!codec) {
    codec = new AesGcmPayloadCodec(parsePayloadKeys(cfg.keys));
    codecs.set(cfg.keys, codec);
  }
  return codec;
}

/**
 * The data converter of every Temporal client and worker of the project (AR-6): the default payload
 * converter with {@link AesGcmPayloadCodec}. Applied by the one client factory (`temporalClient`,
 * src/core/connections.ts) and the one worker factory (`createWorker`, src/core/worker.ts).
 */
export function temporalDataConverter(cfg: PayloadCodecConfig): DataConverter {
  return { payloadCodecs: [payloadCodecFromConfig(cfg)] };
}
