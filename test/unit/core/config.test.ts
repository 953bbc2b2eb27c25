import { z } from 'zod';
import { ConfigError, configSection, envNames, loadSections } from '../../../src/config';
import { CONFIG_ENV_NAMES, CONFIG_SECTIONS, FAMILIES, loadConfig } from '../../../src/families';

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
    const prod = { NODE_ENV: 'production', GITHUB_TOKEN_KEYS: `g:${key}`, WEBHOOK_SECRET_KEYS: `w:${key}`, PAYLOAD_CODEC_KEYS: `p:${key}`, AI_INPUT_HASH_KEY: 'x'.repeat(32), AI_RUN_INPUT_KEYS: `r:${key}` };
    expect(loadConfig({}).portal.callbackSecrets).toHaveLength(1);
    expect(() => loadConfig(prod)).toThrow(/PORTAL_CALLBACK_SECRETS: required/);
    expect(() => loadConfig({ ...prod, PORTAL_CALLBACK_SECRETS: 'short' })).toThrow(/at least 32 characters/);
    const c = loadConfig({ ...prod, PORTAL_CALLBACK_SECRETS: ` ${'a'.repeat(32)} , ${'b'.repeat(40)} ` });
    expect(c.portal.callbackSecrets).toEqual(['a'.repeat(32), 'b'.repeat(40)]);
  });
});

describe('config sections (src/config, assembled from the manifests)', () => {
  const section = (env: Record<string, z.ZodType>) => configSection(env, (e) => ({ [Object.keys(env)[0]!]: e }));

  it('one section per family besides the core\'s, and each variable is declared by exactly one', () => {
    expect(CONFIG_SECTIONS).toHaveLength(FAMILIES.length + 1);
    for (const f of FAMILIES) expect(CONFIG_SECTIONS).toContain(f.config);
    expect(new Set(CONFIG_ENV_NAMES).size).toBe(CONFIG_ENV_NAMES.length);
    expect(() => envNames([section({ A_X: z.string() }), section({ A_X: z.string() })])).toThrow(/A_X is declared by two config sections/);
  });

  it('each family reads its own variables into its own part (AI_RUN_*, PORTAL_*, ST_*, SIMILAR_CARDS_*)', () => {
    const c = loadConfig({ AI_RUN_MAX_ATTEMPTS: '5', PORTAL_ACTIVITY_CONCURRENCY: '2', ST_POLL_LIMIT: '7', SIMILAR_CARDS_FALLBACK_K: '9', SCRAP_MAX_CONTENT_CHARS: '123' });
    expect(c.aiRuns.maxAttempts).toBe(5);
    expect(c.portal.activityConcurrency).toBe(2);
    expect(c.study.poll.limit).toBe(7);
    expect(c.similarity.fallbackK).toBe(9);
    expect(c.scraps.maxContentChars).toBe(123);
  });

  it('names the bad variables of every section in one error', () => {
    expect(() => loadConfig({ API_PORT: 'eighty', AI_RUN_MAX_ATTEMPTS: 'many', ST_POLL_LIMIT: '0' })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^(?=[\s\S]*API_PORT)(?=[\s\S]*AI_RUN_MAX_ATTEMPTS)(?=[\s\S]*ST_POLL_LIMIT)/) }),
    );
  });

  it('runs each section\'s checks, naming the variable', () => {
    expect(() => loadConfig({ AI_RUNTIME: 'http' })).toThrow(/AI_RUNTIME_URL: required when AI_RUNTIME=http/);
    const checked = configSection({ B_Y: z.coerce.number() }, (e) => ({ b: e.B_Y }), ({ b }) => {
      if (b > 1) throw new ConfigError('invalid configuration:\n  B_Y: at most 1');
    });
    expect(loadSections<{ b: number }>({ B_Y: '1' }, [checked]).b).toBe(1);
    expect(() => loadSections({ B_Y: '2' }, [checked])).toThrow(/B_Y: at most 1/);
  });
});
