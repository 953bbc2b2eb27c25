/** Endpoint secrets at rest: sealed under the WEBHOOK_SECRET_KEYS ring, bound to their endpoint. */
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../../src/families';
import { createTokenBox, parseKeyRing } from '../../../src/crypto/token-box';
import { openEndpoint, webhookSecretBox, webhookSecretBoxFromConfig, WebhookSecretError } from '../../../src/core/webhook-secrets';
import { newWebhookSecret, webhookHeaders } from '../../../src/core/webhook-signing';

const key = () => randomBytes(32).toString('base64');
const boxOf = (spec: string, active?: string) => webhookSecretBox(createTokenBox(parseKeyRing(spec, active)));

describe('webhook secret box', () => {
  const k1 = key();
  const box = boxOf(`w1:${k1}`);

  it('the stored form never contains the secret and opens to it for its own endpoint only', () => {
    const id = randomUUID();
    const secret = newWebhookSecret();
    const stored = box.seal(id, secret);
    expect(stored).toMatch(/^v1\.w1\./);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice('whsec_'.length, 20));
    expect(box.open(id, stored)).toBe(secret);
    expect(box.needsSealing(stored)).toBe(false);
    expect(() => box.open(randomUUID(), stored)).toThrow(WebhookSecretError);
  });

  it('a wrong key fails clearly, naming the endpoint and the key ring', () => {
    const id = randomUUID();
    const stored = box.seal(id, newWebhookSecret());
    const other = boxOf(`w1:${key()}`);
    expect(() => other.open(id, stored)).toThrow(new RegExp(`webhook endpoint ${id}: stored secret cannot be opened .*does not verify under key "w1".*WEBHOOK_SECRET_KEYS`));
    const retired = boxOf(`w2:${key()}`);
    expect(() => retired.open(id, stored)).toThrow(/unknown key id "w1"/);
    expect(() => box.open(id, `${stored.slice(0, -4)}AAAA`)).toThrow(WebhookSecretError);
  });

  it('reads a clear legacy value as it is and marks it (and a value under a non-active key) for sealing', () => {
    const id = randomUUID();
    const legacy = newWebhookSecret();
    expect(box.open(id, legacy)).toBe(legacy);
    expect(box.needsSealing(legacy)).toBe(true);
    const sealed = box.sealIfClear(id, legacy);
    expect(sealed).not.toContain(legacy);
    expect(box.open(id, sealed)).toBe(legacy);
    expect(box.sealIfClear(id, sealed)).toBe(sealed);
    const rotated = boxOf(`w1:${k1},w2:${key()}`, 'w2');
    expect(rotated.needsSealing(sealed)).toBe(true);
    expect(rotated.open(id, sealed)).toBe(legacy);
    expect(rotated.needsSealing(rotated.seal(id, legacy))).toBe(false);
  });

  it('opened secrets of a rotation both verify with standardwebhooks', () => {
    const id = randomUUID();
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const row = openEndpoint(box, { id, secret: box.seal(id, current), previousSecret: box.seal(id, previous) });
    expect(row).toEqual({ id, secret: current, previousSecret: previous });
    const body = JSON.stringify({ type: 'async_job.completed', data: { id } });
    const headers = webhookHeaders([row.secret, row.previousSecret!], randomUUID(), Math.floor(Date.now() / 1000), body);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ data: { id } });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ data: { id } });
  });
});

describe('WEBHOOK_SECRET_KEYS config', () => {
  it('development ring outside production; required and parsed in production', () => {
    expect(() => webhookSecretBoxFromConfig(loadConfig({}))).not.toThrow();
    const k = key();
    const prod = { NODE_ENV: 'production', GITHUB_TOKEN_KEYS: `g:${k}`, PAYLOAD_CODEC_KEYS: `p:${k}`, AI_INPUT_HASH_KEY: 'x'.repeat(32), AI_RUN_INPUT_KEYS: `r:${k}`, PORTAL_CALLBACK_SECRETS: 'p'.repeat(32) };
    expect(() => loadConfig(prod)).toThrow(/WEBHOOK_SECRET_KEYS: required/);
    expect(loadConfig({ ...prod, WEBHOOK_SECRET_KEYS: `w:${k}` }).webhooks.secretKeys).toBe(`w:${k}`);
    expect(() => loadConfig({ WEBHOOK_SECRET_KEYS: 'w1:short' })).toThrow(/WEBHOOK_SECRET_KEYS/);
    expect(() => loadConfig({ WEBHOOK_SECRET_KEYS: `a:${key()},b:${key()}` })).toThrow(/active key id/);
    const c = loadConfig({ WEBHOOK_SECRET_KEYS: `a:${key()},b:${key()}`, WEBHOOK_SECRET_ACTIVE_KEY_ID: 'b' });
    expect(webhookSecretBoxFromConfig(c).seal(randomUUID(), newWebhookSecret())).toMatch(/^v1\.b\./);
  });
});
