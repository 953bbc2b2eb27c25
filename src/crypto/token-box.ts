/**
 * SAN-10 access-token encryption: AES-256-GCM under a key ring (`GITHUB_TOKEN_KEYS`). Each sealed
 * token names its key id, so keys rotate: new tokens are sealed with the active key, old ones are
 * opened with the key they name until they are re-sealed. Tokens never leave this module in logs.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** Raised when a key ring is malformed or a sealed token cannot be opened (wrong key, tampering). */
export class TokenBoxError extends Error {
  override readonly name = 'TokenBoxError';
}

/** A token sealed under key `keyId`; `ciphertext` is `v1.<kid>.<iv>.<tag>.<data>` (base64url parts). */
export interface SealedToken {
  keyId: string;
  ciphertext: string;
}

/** Parsed key ring: key id → 32-byte key, and the id that seals new tokens. */
export interface KeyRing {
  keys: ReadonlyMap<string, Buffer>;
  activeKeyId: string;
}

/** Key id of the development key ring (never accepted in production, see config). */
export const DEV_KEY_ID = 'dev';

/**
 * Development-only key ring: a fixed key derived from a public string, so local runs work without
 * configuration. Anything sealed with it is readable by anyone with this source code.
 */
export function devKeyRingSpec(): string {
  const key = createHash('sha256').update('durable-jobs development github token key').digest('base64');
  return `${DEV_KEY_ID}:${key}`;
}

/**
 * Parses `kid:base64key,kid2:base64key2` (each key exactly 32 bytes) and picks the active key
 * (`activeKeyId`, or the only key when there is one).
 * @throws TokenBoxError naming the offending entry (config load fails fast on it).
 */
export function parseKeyRing(spec: string, activeKeyId?: string): KeyRing {
  const keys = new Map<string, Buffer>();
  for (const raw of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const sep = raw.indexOf(':');
    const kid = sep > 0 ? raw.slice(0, sep) : '';
    if (!KEY_ID.test(kid)) throw new TokenBoxError(`key entry #${keys.size + 1}: key id must match ${KEY_ID}`);
    const key = Buffer.from(raw.slice(sep + 1), 'base64');
    if (key.length !== 32) throw new TokenBoxError(`key "${kid}": must be 32 bytes in base64 (got ${key.length})`);
    if (keys.has(kid)) throw new TokenBoxError(`key "${kid}": listed twice`);
    keys.set(kid, key);
  }
  if (keys.size === 0) throw new TokenBoxError('no keys');
  const active = activeKeyId ?? (keys.size === 1 ? [...keys.keys()][0] : undefined);
  if (!active) throw new TokenBoxError('several keys: the active key id must be set');
  if (!keys.has(active)) throw new TokenBoxError(`active key "${active}" is not in the key ring`);
  return { keys, activeKeyId: active };
}

/** Seals and opens access tokens; `context` (e.g. the user id) is bound as additional data. */
export interface TokenBox {
  readonly activeKeyId: string;
  seal(token: string, context: string): SealedToken;
  /** @throws TokenBoxError when the key is unknown or the ciphertext/context does not verify. */
  open(sealed: SealedToken, context: string): string;
  /** True when `sealed` was not sealed with the active key (re-seal it on the next write). */
  needsRotation(sealed: SealedToken): boolean;
}

const b64 = (b: Buffer) => b.toString('base64url');

/** Builds a {@link TokenBox} over a parsed key ring. */
export function createTokenBox(ring: KeyRing): TokenBox {
  const keyFor = (kid: string) => {
    const key = ring.keys.get(kid);
    if (!key) throw new TokenBoxError(`unknown key id "${kid}"`);
    return key;
  };
  return {
    activeKeyId: ring.activeKeyId,
    seal(token, context) {
      const kid = ring.activeKeyId;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(kid), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(`${VERSION}.${kid}.${context}`, 'utf8'));
      const data = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return { keyId: kid, ciphertext: [VERSION, kid, b64(iv), b64(cipher.getAuthTag()), b64(data)].join('.') };
    },
    open(sealed, context) {
      const parts = sealed.ciphertext.split('.');
      const [version, kid, iv, tag, data] = parts;
      if (parts.length !== 5 || version !== VERSION || !kid || !iv || !tag || data === undefined) {
        throw new TokenBoxError('sealed token has an unknown format');
      }
      if (kid !== sealed.keyId) throw new TokenBoxError(`sealed token names key "${kid}" but is stored under "${sealed.keyId}"`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(kid), Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(`${VERSION}.${kid}.${context}`, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch (err) {
        if (err instanceof TokenBoxError) throw err;
        throw new TokenBoxError(`sealed token does not verify under key "${kid}"`);
      }
    },
    needsRotation(sealed) {
      return sealed.keyId !== ring.activeKeyId;
    },
  };
}

/** The token box's own section of the config: the key ring spec and the active key id. */
export interface TokenKeyConfig {
  /** `kid:base64key,…` (GITHUB_TOKEN_KEYS). */
  tokenKeys?: string | undefined;
  /** Key id new tokens are sealed with (GITHUB_TOKEN_ACTIVE_KEY_ID); default: the first key. */
  activeKeyId?: string | undefined;
}

/**
 * The token box configured by GITHUB_TOKEN_KEYS / GITHUB_TOKEN_ACTIVE_KEY_ID (validated at config
 * load); pass `config.github`. @throws TokenBoxError when no key ring is configured.
 */
export function tokenBoxFromConfig(keys: TokenKeyConfig): TokenBox {
  if (!keys.tokenKeys) throw new TokenBoxError('GITHUB_TOKEN_KEYS is not configured');
  return createTokenBox(parseKeyRing(keys.tokenKeys, keys.activeKeyId));
}
