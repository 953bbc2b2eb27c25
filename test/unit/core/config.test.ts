import { ConfigError, loadConfig } from '../../../src/config';

describe('config', () => {
  it('has working defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.database.url).toBeUndefined();
    expect(c.ai.provider).toBe('local');
    expect(c.similarity).toEqual({ threshold: 0.5, thresholds: {}, fallbackK: 5, vectorSearch: 'auto' });
    expect(c.temporal.address).toBe('127.0.0.1:7233');
  });
  it('coerces numbers and treats empty strings as unset', () => {
    const c = loadConfig({ API_PORT: '8080', SIMILAR_CARDS_FALLBACK_K: '7', DATABASE_URL: '' });
    expect(c.api.port).toBe(8080);
    expect(c.similarity.fallbackK).toBe(7);
    expect(c.database.url).toBeUndefined();
  });
  it('fails fast naming every bad variable', () => {
    expect(() => loadConfig({ API_PORT: 'eighty', AI_PROVIDER: 'gpt' })).toThrow(ConfigError);
    expect(() => loadConfig({ API_PORT: 'eighty', AI_PROVIDER: 'gpt' })).toThrow(/API_PORT[\s\S]*AI_PROVIDER|AI_PROVIDER[\s\S]*API_PORT/);
  });
  it('bounds slow clients by default and derives the headers timeout from the request timeout', () => {
    const d = loadConfig({}).api;
    expect(d.requestTimeoutMs).toBeGreaterThan(0);
    expect(d.headersTimeoutMs).toBeLessThanOrEqual(d.requestTimeoutMs);
    expect(loadConfig({ API_REQUEST_TIMEOUT_MS: '2000' }).api.headersTimeoutMs).toBe(2000);
    expect(loadConfig({ API_REQUEST_TIMEOUT_MS: '2000', API_HEADERS_TIMEOUT_MS: '500' }).api.headersTimeoutMs).toBe(500);
    expect(() => loadConfig({ API_REQUEST_TIMEOUT_MS: '2000', API_HEADERS_TIMEOUT_MS: '5000' })).toThrow(/API_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ API_REQUEST_TIMEOUT_MS: '0' })).toThrow(/API_REQUEST_TIMEOUT_MS/);
  });
  it('requires an API key for the openai provider', () => {
    expect(() => loadConfig({ AI_PROVIDER: 'openai' })).toThrow(/OPENAI_API_KEY/);
    expect(loadConfig({ AI_PROVIDER: 'openai', OPENAI_API_KEY: 'k' }).ai.provider).toBe('openai');
  });
  it('PO-5 callback secrets: a dev secret outside production, required and at least 32 characters in production, comma list for rotation', () => {
    const key = Buffer.alloc(32, 3).toString('base64');
    const prod = { NODE_ENV: 'production', GITHUB_TOKEN_KEYS: `g:${key}`, PAYLOAD_CODEC_KEYS: `p:${key}`, AI_INPUT_HASH_KEY: 'x'.repeat(32), AI_RUN_INPUT_KEYS: `r:${key}` };
    expect(loadConfig({}).portal.callbackSecrets).toHaveLength(1);
    expect(() => loadConfig(prod)).toThrow(/PORTAL_CALLBACK_SECRETS: required/);
    expect(() => loadConfig({ ...prod, PORTAL_CALLBACK_SECRETS: 'short' })).toThrow(/at least 32 characters/);
    const c = loadConfig({ ...prod, PORTAL_CALLBACK_SECRETS: ` ${'a'.repeat(32)} , ${'b'.repeat(40)} ` });
    expect(c.portal.callbackSecrets).toEqual(['a'.repeat(32), 'b'.repeat(40)]);
  });
});
