import { createHash } from 'node:crypto';
import { loadConfig } from '../../../src/families';
import { DomainError } from '../../../src/core/domain-error';
import { CORE_ERROR_REGISTRY } from '../../../src/core/errors';
import { resolveProblem } from '../../../src/core/problems';
import {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  differingFields,
  fingerprintRequest,
  idempotencyKeyHash,
  idempotencyKeyOf,
  parseIdempotencyKey,
} from '../../../src/core/idempotency';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** The HTTP status the API answers the DomainError `fn` throws with (undefined when it throws none). */
function answered(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return resolveProblem(CORE_ERROR_REGISTRY.problems, err)?.status;
    throw err;
  }
  return undefined;
}

describe('parseIdempotencyKey', () => {
  it('accepts 1-255 visible ASCII characters and the structured-field string form', () => {
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
    expect(parseIdempotencyKey('"abc"')).toBe('abc');
    expect(parseIdempotencyKey('k'.repeat(255))).toHaveLength(255);
    expect(parseIdempotencyKey('!~{}[]')).toBe('!~{}[]');
    expect(idempotencyKeyOf({ 'idempotency-key': 'x1' })).toBe('x1');
  });

  it('a missing header is 400 IDEMPOTENCY_KEY_MISSING', () => {
    expect(() => idempotencyKeyOf({})).toThrow(expect.objectContaining({ code: 'IDEMPOTENCY_KEY_MISSING' }));
    expect(answered(() => idempotencyKeyOf({}))).toBe(400);
  });

  it.each([
    ['empty', ''],
    ['empty quoted', '""'],
    ['too long', 'k'.repeat(256)],
    ['a space', 'a b'],
    ['a tab', 'a\tb'],
    ['non-ASCII', 'schlüssel'],
    ['a control character', 'a\u0001'],
    ['two headers', ['a', 'b']],
  ])('%s is 400 IDEMPOTENCY_KEY_INVALID', (_what, value) => {
    let caught: unknown;
    try {
      parseIdempotencyKey(value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect(caught).toMatchObject({ code: 'IDEMPOTENCY_KEY_INVALID' });
    expect(resolveProblem(CORE_ERROR_REGISTRY.problems, caught as DomainError)?.status).toBe(400);
  });
});

describe('idempotencyKeyHash', () => {
  it('is the SHA-256 hex of the key, not the key', () => {
    expect(idempotencyKeyHash('my-key')).toBe(sha('my-key'));
    expect(idempotencyKeyHash('my-key')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('fingerprintRequest (RFC 8785)', () => {
  it('hashes the canonical JSON: key order, whitespace and number spelling do not matter', async () => {
    const a = await fingerprintRequest({ b: 2, a: { y: [1, 'x'], x: 1e2 } });
    const b = await fingerprintRequest(JSON.parse('{ "a": { "x": 100.0, "y": [1, "x"] }, "b": 2.00 }') as Record<string, unknown>);
    expect(a).toEqual(b);
    expect(a.requestHash).toBe(sha('{"a":{"x":100,"y":[1,"x"]},"b":2}'));
    expect(a.fieldHashes).toEqual({ a: sha('{"x":100,"y":[1,"x"]}'), b: sha('2') });
  });

  it('an undefined field is absent, as in JSON', async () => {
    expect(await fingerprintRequest({ a: 1, b: undefined })).toEqual(await fingerprintRequest({ a: 1 }));
  });

  it('a different value changes the request hash and that field hash only', async () => {
    const a = await fingerprintRequest({ text: 'hello', companyId: 'c1' });
    const b = await fingerprintRequest({ text: 'hello!', companyId: 'c1' });
    expect(a.requestHash).not.toBe(b.requestHash);
    expect(differingFields(a.fieldHashes, b.fieldHashes)).toEqual(['text']);
  });

  it('a lone surrogate is refused as invalid input, not a crash', async () => {
    const err: unknown = await fingerprintRequest({ text: '\ud800' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(resolveProblem(CORE_ERROR_REGISTRY.problems, err as DomainError)?.status).toBe(400);
  });
});

describe('differingFields', () => {
  it('names fields with other values and fields present on one side only, sorted', () => {
    expect(differingFields({ a: '1', b: '2', c: '3' }, { a: '1', b: 'x', d: '4' })).toEqual(['b', 'c', 'd']);
    expect(differingFields({ a: '1' }, { a: '1' })).toEqual([]);
  });
});

describe('IDEMPOTENCY_KEY_TTL_HOURS', () => {
  it('defaults to 24 h (in ms) and accepts fractions; zero or negative is refused', () => {
    expect(loadConfig({}).idempotency.ttlMs).toBe(DEFAULT_IDEMPOTENCY_TTL_MS);
    expect(DEFAULT_IDEMPOTENCY_TTL_MS).toBe(86_400_000);
    expect(loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '0.5' }).idempotency.ttlMs).toBe(1_800_000);
    expect(() => loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '0' })).toThrow(/IDEMPOTENCY_KEY_TTL_HOURS/);
  });
});
