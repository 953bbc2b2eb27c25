import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../src/families';
import { ConfigError } from '../../../src/config';
import { createTokenBox, DEV_KEY_ID, parseKeyRing, tokenBoxFromConfig, TokenBoxError } from '../../../src/crypto/token-box';

const key = () => randomBytes(32).toString('base64');
const TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';

describe('token box (SAN-10)', () => {
  it('round-trips a token; the ciphertext names its key and never contains the token', () => {
    const box = createTokenBox(parseKeyRing(`k1:${key()}`));
    const sealed = box.seal(TOKEN, 'user-1');
    expect(sealed.keyId).toBe('k1');
    expect(sealed.ciphertext.startsWith('v1.k1.')).toBe(true);
    expect(sealed.ciphertext).not.toContain(TOKEN);
    expect(Buffer.from(sealed.ciphertext.split('.')[4]!, 'base64url').toString('utf8')).not.toContain('ghp_');
    expect(box.open(sealed, 'user-1')).toBe(TOKEN);
    expect(box.seal(TOKEN, 'user-1').ciphertext).not.toBe(sealed.ciphertext); // fresh IV each time
  });

  it('rejects another context (a row copied to another user), tampering and a wrong key', () => {
    const box = createTokenBox(parseKeyRing(`k1:${key()}`));
    const sealed = box.seal(TOKEN, 'user-1');
    expect(() => box.open(sealed, 'user-2')).toThrow(TokenBoxError);
    const parts = sealed.ciphertext.split('.');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0] = data[0]! ^ 1;
    parts[4] = data.toString('base64url');
    expect(() => box.open({ keyId: 'k1', ciphertext: parts.join('.') }, 'user-1')).toThrow(/does not verify/);
    const other = createTokenBox(parseKeyRing(`k1:${key()}`));
    expect(() => other.open(sealed, 'user-1')).toThrow(TokenBoxError);
    expect(() => box.open({ keyId: 'k2', ciphertext: sealed.ciphertext }, 'user-1')).toThrow(/stored under/);
  });

  it('rotates: old tokens open with their key, new ones are sealed with the active key', () => {
    const k1 = key();
    const k2 = key();
    const before = createTokenBox(parseKeyRing(`k1:${k1}`));
    const old = before.seal(TOKEN, 'u');
    const after = createTokenBox(parseKeyRing(`k1:${k1},k2:${k2}`, 'k2'));
    expect(after.open(old, 'u')).toBe(TOKEN);
    expect(after.needsRotation(old)).toBe(true);
    const fresh = after.seal(after.open(old, 'u'), 'u');
    expect(fresh.keyId).toBe('k2');
    expect(after.needsRotation(fresh)).toBe(false);
    // Once k1 is retired, only re-sealed tokens open.
    const retired = createTokenBox(parseKeyRing(`k2:${k2}`));
    expect(retired.open(fresh, 'u')).toBe(TOKEN);
    expect(() => retired.open(old, 'u')).toThrow(/unknown key id "k1"/);
  });

  it('validates the key ring', () => {
    expect(() => parseKeyRing('')).toThrow(/no keys/);
    expect(() => parseKeyRing(`k1:${Buffer.alloc(16).toString('base64')}`)).toThrow(/32 bytes/);
    expect(() => parseKeyRing(`bad id:${key()}`)).toThrow(/key id/);
    expect(() => parseKeyRing(`k1:${key()},k1:${key()}`)).toThrow(/twice/);
    expect(() => parseKeyRing(`k1:${key()},k2:${key()}`)).toThrow(/active key id must be set/);
    expect(() => parseKeyRing(`k1:${key()}`, 'k9')).toThrow(/not in the key ring/);
  });

  it('config: dev key ring outside production, fail fast in production without keys', () => {
    expect(tokenBoxFromConfig(loadConfig({}).github).activeKeyId).toBe(DEV_KEY_ID);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/GITHUB_TOKEN_KEYS/);
    expect(() => loadConfig({ NODE_ENV: 'production', GITHUB_TOKEN_KEYS: 'k1:short' })).toThrow(/GITHUB_TOKEN_KEYS/);
    // Production also needs the AI-run keys (AR-6); given here so only the GitHub keys are under test.
    const ar = { AI_INPUT_HASH_KEY: 'x'.repeat(32), AI_RUN_INPUT_KEYS: `r:${key()}`, WEBHOOK_SECRET_KEYS: `w:${key()}`, PORTAL_CALLBACK_SECRETS: 'p'.repeat(32) };
    const c = loadConfig({ NODE_ENV: 'production', ...ar, GITHUB_TOKEN_KEYS: `a:${key()},b:${key()}`, GITHUB_TOKEN_ACTIVE_KEY_ID: 'b', PAYLOAD_CODEC_KEYS: `p:${key()}` });
    expect(tokenBoxFromConfig(c.github).activeKeyId).toBe('b');
    expect(c.github.apiUrl).toBe('https://api.github.com');
    expect(loadConfig({ GITHUB_API_URL: 'http://127.0.0.1:9/' }).github.apiUrl).toBe('http://127.0.0.1:9');
  });
});
