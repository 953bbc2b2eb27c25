/**
 * The API's input boundary without servers: raw JSON checks (charset, depth), the iterative
 * unstorable-string search, validation error shaping, the registration guard for body schemas,
 * the classification of database-unavailable errors, and how the error handler answers a
 * DomainError from the error registry.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Prisma } from '@prisma/client';
import { z } from 'zod';
import { canonicaliseInput, findUnstorableString } from '../../../src/api/input-rules';
import { charsetOf, jsonDepthExceeds, MAX_JSON_DEPTH } from '../../../src/api/json-body';
import { declareProblemResponses } from '../../../src/api/openapi';
import { installProblemHandlers, MAX_LISTED_ERRORS, ProblemSchema, validationErrors } from '../../../src/api/problem';
import { DomainError } from '../../../src/core/domain-error';
import { CORE_ERRORS } from '../../../src/core/errors';
import { SAN_ERRORS } from '../../../src/domain/scraps/errors';
import { ERROR_REGISTRY } from '../../../src/families';
import { databaseUnavailability } from '../../../src/db/unavailable';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('JSON body checks on the raw text', () => {
  it('reads the charset parameter: case, quotes, spacing, absent', () => {
    expect(charsetOf('application/json')).toBeUndefined();
    expect(charsetOf('application/json; charset=UTF-8')).toBe('utf-8');
    expect(charsetOf('application/json;charset="ISO-8859-1"')).toBe('iso-8859-1');
    expect(charsetOf('application/json ; foo=bar ;  CharSet = utf8')).toBe('utf8');
    expect(charsetOf('application/json; foo="a;charset=latin1"; charset=utf-8')).toBe('utf-8');
  });

  it('measures nesting depth in one pass, ignoring brackets inside strings', () => {
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonDepthExceeds(`{"a":${nested(MAX_JSON_DEPTH, '{"b":', '}')}}`, MAX_JSON_DEPTH)).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ content: '[[[[{{{{'.repeat(100), q: 'say \\"[[[' }), 3)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify(['\\', '[[[[[[']), 2)).toBe(false);
    expect(jsonDepthExceeds(nested(10_000), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('findUnstorableString', () => {
  it('finds NUL and lone surrogates by path', () => {
    expect(findUnstorableString({ a: 'ok', b: ['x', 'y\u0000'] })).toBe('.b[1]');
    expect(findUnstorableString({ t: 'a\ud800' })).toBe('.t');
    expect(findUnstorableString({ t: '\ud83d\ude00 fine' })).toBeUndefined();
  });
  it('handles any nesting depth without recursion', () => {
    let deep: unknown = 'bad\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorableString(deep)).toBe('[0]'.repeat(100_000));
  });
});

describe('canonicaliseInput', () => {
  const UPPER = 'ABCDEF01-2345-4678-9ABC-DEF012345678';
  it('NFC-normalises every string, at any depth, keys left alone', () => {
    const input = { t: 'Cafe\u0301', list: ['e\u0301', { deep: ['A\u030a'] }], 'e\u0301': 1 };
    expect(canonicaliseInput(input)).toEqual({ t: 'Caf\u00e9', list: ['\u00e9', { deep: ['\u00c5'] }], 'e\u0301': 1 });
  });
  it('lower-cases UUIDs in id, …Id, …Ids, …_id fields only; other strings keep their case', () => {
    const input = { id: UPPER, companyId: UPPER, candidateIds: [UPPER, 'X'], job_id: UPPER, nested: [{ cardId: UPPER }], title: UPPER, idea: UPPER, code: 'ABC' };
    const lower = UPPER.toLowerCase();
    expect(canonicaliseInput(input)).toEqual({ id: lower, companyId: lower, candidateIds: [lower, 'X'], job_id: lower, nested: [{ cardId: lower }], title: UPPER, idea: UPPER, code: 'ABC' });
  });
  it('path params: every UUID value, whatever its name; non-UUIDs keep their case', () => {
    expect(canonicaliseInput({ jobId: UPPER, summaryId: UPPER, courseCode: 'CS101' }, true)).toEqual({ jobId: UPPER.toLowerCase(), summaryId: UPPER.toLowerCase(), courseCode: 'CS101' });
  });
  it('a bare string body, null and numbers pass through', () => {
    expect(canonicaliseInput('e\u0301')).toBe('\u00e9');
    expect(canonicaliseInput(null)).toBeNull();
    expect(canonicaliseInput([1, 2, 3])).toEqual([1, 2, 3]);
  });
  it('handles any nesting depth without recursion', () => {
    let deep: unknown = 'e\u0301';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let v = canonicaliseInput(deep);
    while (Array.isArray(v)) v = v[0];
    expect(v).toBe('\u00e9');
  });
});

describe('validation errors', () => {
  it('names unknown fields one per entry, capped, and counts the rest', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    const errors = validationErrors('body', [{ instancePath: '/', keyword: 'unrecognized_keys', message: 'x', params: { keys } }]);
    expect(errors).toHaveLength(MAX_LISTED_ERRORS + 1);
    expect(errors.slice(0, 3)).toEqual([
      { path: 'body.k0', message: 'unknown field' },
      { path: 'body.k1', message: 'unknown field' },
      { path: 'body.k2', message: 'unknown field' },
    ]);
    expect(errors.at(-1)).toEqual({ path: 'body', message: `${1000 - MAX_LISTED_ERRORS} more errors not listed` });
  });
  it('cuts a huge field name by code point', () => {
    const [e] = validationErrors('body', [{ instancePath: '/', keyword: 'unrecognized_keys', params: { keys: ['😀'.repeat(1000)] } }]);
    expect(Array.from(e!.path)).toHaveLength('body.'.length + 64 + 1);
    expect(e!.path.isWellFormed()).toBe(true);
  });
  it('joins nested paths with dots', () => {
    expect(validationErrors('querystring', [{ instancePath: '/limit', message: 'too big' }])).toEqual([{ path: 'querystring.limit', message: 'too big' }]);
  });
});

describe('route registration guard', () => {
  async function appWith(body: z.ZodType) {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    declareProblemResponses(app);
    app.post('/x', { schema: { body } }, async () => ({}));
    await app.ready();
    return app;
  }
  it('refuses a body schema that accepts unknown fields', async () => {
    await expect(appWith(z.object({ a: z.string() }))).rejects.toThrow(/must reject unknown fields/);
  });
  it('accepts a strict one', async () => {
    const app = await appWith(z.strictObject({ a: z.string() }));
    expect((await app.inject({ method: 'POST', url: '/x', payload: { a: 'x', b: 1 } })).statusCode).toBe(400);
    await app.close();
  });
});

describe('database unavailability', () => {
  const known = (code: string, meta?: Record<string, unknown>) =>
    new Prisma.PrismaClientKnownRequestError('x', { code, clientVersion: '6', meta });
  it('knows the Prisma codes of an unusable database', () => {
    for (const code of ['P1001', 'P1002', 'P1008', 'P1017', 'P2037']) expect(databaseUnavailability(known(code))).toBe('unreachable');
    for (const code of ['P2024', 'P2028']) expect(databaseUnavailability(known(code))).toBe('busy');
    expect(databaseUnavailability(new Prisma.PrismaClientInitializationError("Can't reach database server", '6'))).toBe('unreachable');
  });
  it('looks through a raw-query error (P2010) to the driver adapter cause', () => {
    const adminShutdown = { name: 'DriverAdapterError', message: 'terminating connection', cause: { kind: 'postgres', code: '57P01' } };
    expect(databaseUnavailability(known('P2010', { driverAdapterError: adminShutdown }))).toBe('unreachable');
    expect(databaseUnavailability(known('P2010', { driverAdapterError: { cause: { kind: 'DatabaseNotReachable' } } }))).toBe('unreachable');
    expect(databaseUnavailability(known('P2010', { driverAdapterError: { cause: { kind: 'postgres', code: '42601' } } }))).toBeUndefined();
  });
  it("knows node-postgres' own connection errors and socket codes", () => {
    expect(databaseUnavailability(new Error('Connection terminated unexpectedly'))).toBe('unreachable');
    expect(databaseUnavailability(new Error('Client has encountered a connection error and is not queryable'))).toBe('unreachable');
    expect(databaseUnavailability(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe('unreachable');
    expect(databaseUnavailability(Object.assign(new Error('admin'), { code: '57P01', severity: 'FATAL' }))).toBe('unreachable');
  });
  it('leaves other errors alone', () => {
    expect(databaseUnavailability(known('P2002'))).toBeUndefined();
    expect(databaseUnavailability(new Error('boom'))).toBeUndefined();
    expect(databaseUnavailability(Object.assign(new Error('x'), { code: '57P01' }))).toBeUndefined(); // not a server error
  });
});

describe('DomainError answers (the one error handler)', () => {
  let app: FastifyInstance;
  const throwing = (err: Error) => async () => {
    throw err;
  };
  beforeAll(async () => {
    app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    installProblemHandlers(app, { problems: ERROR_REGISTRY.problems });
    const schema = { response: { 409: ProblemSchema, 422: ProblemSchema, 503: ProblemSchema } };
    app.get('/family', { schema }, throwing(SAN_ERRORS.problem('NO_CARDS_FOR_DATE', 'no cards on 2026-01-01')));
    app.get('/other-status', { schema }, throwing(SAN_ERRORS.problem('GITHUB_PATH_UNAVAILABLE', 'retry', { status: 503 })));
    app.get('/own-retry-after', { schema }, throwing(CORE_ERRORS.problem('SERVICE_UNAVAILABLE', 'down', { headers: { 'Retry-After': '5' } })));
    app.get('/members', { schema }, throwing(CORE_ERRORS.problem('DUPLICATE_RESOURCE', 'taken', { members: { activeJobId: 'j1' }, headers: { ETag: '"v2"' } })));
    app.get('/unregistered', { schema }, throwing(new DomainError('NOT_A_CODE', 'x')));
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers the status and title registered for the code', async () => {
    const res = await app.inject({ method: 'GET', url: '/family' });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toEqual({
      type: 'urn:problem:no-cards-for-date', title: 'No Cards For Date', status: 422, code: 'NO_CARDS_FOR_DATE', detail: 'no cards on 2026-01-01', instance: '/family',
    });
  });

  it('answers the other status the thrower chose; a 503 gets Retry-After 1 unless it names its own', async () => {
    const other = await app.inject({ method: 'GET', url: '/other-status' });
    expect([other.statusCode, other.json().code, other.json().title, other.headers['retry-after']]).toEqual([503, 'GITHUB_PATH_UNAVAILABLE', 'Path Unavailable', '1']);
    const own = await app.inject({ method: 'GET', url: '/own-retry-after' });
    expect([own.statusCode, own.headers['retry-after']]).toEqual([503, '5']);
  });

  it('keeps extension members and headers the thrower gives', async () => {
    const res = await app.inject({ method: 'GET', url: '/members' });
    expect(res.statusCode).toBe(409);
    expect(res.headers.etag).toBe('"v2"');
    expect(res.json()).toMatchObject({ code: 'DUPLICATE_RESOURCE', title: 'Duplicate Resource', detail: 'taken', activeJobId: 'j1' });
  });

  it('an unregistered code is a bug: 500 INTERNAL', async () => {
    const res = await app.inject({ method: 'GET', url: '/unregistered' });
    expect([res.statusCode, res.json().code]).toEqual([500, 'INTERNAL']);
  });
});
