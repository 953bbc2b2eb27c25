/**
 * The API tells the truth about itself and holds against hostile clients, checked over every
 * operation of /openapi.json (not a hand-picked list) and, for socket-level behaviour, over real
 * HTTP: slow clients end with 408, oversized headers get 431, both problem+json.
 */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ProblemSchema } from '../../../src/api/problem';
import { startGithubEmulator, type GithubEmulator } from '../../support/github-emulator';
import { startStack, type Stack } from '../../support/stack';

let stack: Stack;
let emulator: GithubEmulator;
let user: Awaited<ReturnType<Stack['newUser']>>;
let port: number;

interface Operation {
  method: string;
  path: string;
  security?: unknown[];
  requestBody?: { content: Record<string, BodyMedia> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }>; headers?: Record<string, unknown> }>;
}
let operations: Operation[];
let problemComponent: { properties: Record<string, unknown>; required?: string[]; examples?: unknown[] } | undefined;

interface BodyMedia {
  schema: unknown;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
/** The request-body examples of an operation (@fastify/swagger writes one as `example`, several as `examples`). */
const examplesOf = (op: Operation): unknown[] => {
  const media = op.requestBody?.content['application/json'];
  if (!media) return [];
  return media.examples ? Object.values(media.examples).map((e) => e.value) : media.example !== undefined ? [media.example] : [];
};

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, SAMPLE_ID);

beforeAll(async () => {
  emulator = await startGithubEmulator();
  stack = await startStack({
    aiWorker: false,
    env: { GITHUB_API_URL: emulator.url, API_REQUEST_TIMEOUT_MS: '1500', API_HEADERS_TIMEOUT_MS: '1000', API_MAX_HEADER_BYTES: '8192' },
  });
  user = await stack.newUser();
  await stack.app.listen({ host: '127.0.0.1', port: 0 });
  port = (stack.app.server.address() as AddressInfo).port;
  const doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
    components?: { schemas?: Record<string, NonNullable<typeof problemComponent>> };
  };
  problemComponent = doc.components?.schemas?.Problem;
  operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })));
});
afterAll(async () => {
  await stack?.stop();
  await emulator?.close();
});

const bodyOperations = () => operations.filter((op) => op.requestBody);
const isPublic = (op: Operation) => Array.isArray(op.security) && op.security.length === 0;

describe('OpenAPI document', () => {
  it('declares every 4xx/5xx of every operation as application/problem+json with the Problem schema', () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    for (const op of operations) {
      for (const [status, r] of Object.entries(op.responses)) {
        if (!/^[45]/.test(status)) {
          // 2xx carry their own schemas; a 3xx (304 Not Modified of a long poll) has no body at all.
          if (/^3/.test(status)) expect(r.content).toBeUndefined();
          continue;
        }
        const types = Object.keys(r.content ?? {});
        if (types.join() !== 'application/problem+json' || r.content?.['application/problem+json']?.schema?.$ref !== '#/components/schemas/Problem') {
          wrong.push(`${op.method} ${op.path} ${status}: ${types.join() || 'no content'}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the Problem schema has the RFC 9457 members and the stable code, with an example that is a valid problem', () => {
    expect(problemComponent).toBeDefined();
    expect(Object.keys(problemComponent!.properties)).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'instance']));
    expect(problemComponent!.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code']));
    expect(problemComponent!.examples?.length).toBeGreaterThan(0);
    for (const example of problemComponent!.examples ?? []) expect(ProblemSchema.strict().parse(example)).toEqual(example);
  });

  it('success bodies keep their own media types: no 2xx is declared as problem+json', () => {
    const wrong = operations.flatMap((op) =>
      Object.entries(op.responses)
        .filter(([status, r]) => /^2/.test(status) && Object.keys(r.content ?? {}).some((t) => t.includes('problem')))
        .map(([status]) => `${op.method} ${op.path} ${status}`),
    );
    expect(wrong).toEqual([]);
  });

  it('declares what the server itself can answer: 401/503 on protected, 400/408/413/415 on body operations, 500 everywhere', () => {
    const missing: string[] = [];
    for (const op of operations) {
      const need = ['500', ...(isPublic(op) ? [] : ['401', '503']), ...(op.requestBody ? ['400', '408', '413', '415'] : [])];
      for (const s of need) if (!op.responses[s]) missing.push(`${op.method} ${op.path} ${s}`);
      if (op.responses['503'] && !isPublic(op)) expect(op.responses['503'].headers).toHaveProperty('Retry-After');
    }
    expect(missing).toEqual([]);
  });

  /** A body's object schema: the schema itself, or the one non-null member of a body that may be `null`. */
  const bodyObject = (schema: unknown): { additionalProperties?: unknown } => {
    type Member = { type?: unknown; anyOf?: Member[]; oneOf?: Member[]; additionalProperties?: unknown };
    const s = schema as Member;
    const objects = (s.anyOf ?? s.oneOf ?? [s]).filter((m) => m.type !== 'null');
    return objects.length === 1 ? objects[0]! : s;
  };

  it('every request body is a closed object with examples, and each example passes validation', async () => {
    expect(bodyOperations().length).toBeGreaterThanOrEqual(5);
    for (const op of bodyOperations()) {
      const media = op.requestBody!.content['application/json']!;
      expect([op.path, bodyObject(media.schema).additionalProperties]).toEqual([op.path, false]);
      const examples = examplesOf(op);
      expect([op.path, examples.length > 0]).toEqual([op.path, true]);
      for (const value of examples) {
        const res = await stack.app.inject({ method: op.method as 'POST', url: concrete(op.path), headers: user.auth, payload: value as object });
        expect([op.method, op.path, res.json().code]).not.toEqual([op.method, op.path, 'VALIDATION_FAILED']);
        expect(res.statusCode).toBeLessThan(500);
      }
    }
  });

  it('the document carries the constraints the server enforces (blank text, non-http URL, bad directory, year 0000)', () => {
    const body = (path: string, method = 'post') => {
      const op = operations.find((o) => o.path === path && o.method === method.toUpperCase())!;
      return op.requestBody!.content['application/json']!.schema as { properties: Record<string, { pattern?: string; 'x-server-pattern'?: string; description?: string }> };
    };
    const matches = (pattern: string | undefined, value: string) => new RegExp(pattern ?? '', 'u').test(value);
    const scrap = body('/scraps').properties;
    // A rule with Unicode property classes is stated in words and in x-server-pattern, not as `pattern`.
    expect(scrap.content!.pattern).toBeUndefined();
    expect(scrap.content!.description).toContain('visible character');
    expect(matches(scrap.content!['x-server-pattern'], ' \u200b\u0085')).toBe(false);
    expect(matches(scrap.content!['x-server-pattern'], 'text')).toBe(true);
    expect(matches(scrap.title!['x-server-pattern'], '\u3164')).toBe(false);
    expect(matches(scrap.sourceUrl!.pattern, 'ftp://x')).toBe(false);
    expect(matches(body('/github/repository', 'put').properties.directory!.pattern, 'a/../b')).toBe(false);
    const date = JSON.stringify(body('/til').properties.targetDate);
    expect(date).toContain('(?!0000)');
  });
});

describe('every body operation rejects the same hostile inputs the same way', () => {
  const send = (op: Operation, payload: string | Buffer, contentType = 'application/json') =>
    stack.app.inject({ method: op.method as 'POST', url: concrete(op.path), headers: { ...user.auth, 'content-type': contentType }, payload });

  it('unknown fields → 400 naming them', async () => {
    for (const op of bodyOperations()) {
      const example = examplesOf(op)[0] as object;
      const res = await send(op, JSON.stringify({ ...example, sneaky: 1, also: 2 }));
      expect([op.path, res.statusCode, res.json().code]).toEqual([op.path, 400, 'VALIDATION_FAILED']);
      expect(res.json().errors).toEqual(expect.arrayContaining([{ path: 'body.sneaky', message: 'unknown field' }, { path: 'body.also', message: 'unknown field' }]));
    }
  });

  it('10,000-deep nesting → 400, a non-UTF-8 charset or text/plain → 415, invalid UTF-8 → 400, too large → 413', async () => {
    const deep = `{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const cases: [string | Buffer, string, number, string][] = [
      [deep, 'application/json', 400, 'VALIDATION_FAILED'],
      ['{}', 'application/json; charset=iso-8859-1', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['{}', 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 'application/json', 400, 'MALFORMED_JSON'],
      [`{"x":"${'a'.repeat(stack.config.api.bodyLimitBytes)}"}`, 'application/json', 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const op of bodyOperations()) {
      for (const [payload, type, status, code] of cases) {
        const res = await send(op, payload, type);
        expect([op.path, type, res.statusCode, res.json().code]).toEqual([op.path, type, status, code]);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
    }
  });
});

/** Opens a raw TCP connection to the listening app; resolves with everything received until the server closes it. */
function rawConnection(): { socket: Socket; received: Promise<string> } {
  const socket = connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  const received = new Promise<string>((resolve) => {
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
  return { socket, received };
}

const problemOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { status: number; code: string };

describe('slow and oversized clients over real HTTP', () => {
  it('a body that stops arriving ends with 408 REQUEST_TIMEOUT problem+json and a closed connection', async () => {
    const { socket, received } = rawConnection();
    socket.write(
      `POST /scraps HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${user.auth.authorization}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"content":"trick',
    );
    const response = await received; // the server must close it; the test timeout is the bound
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(response).toMatch(/content-type: application\/problem\+json/i);
    expect(problemOf(response)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
    expect(await stack.db.scrap.count({ where: { content: { startsWith: 'trick' } } })).toBe(0);
  });

  it('headers that stop arriving end with 408 too', async () => {
    const { socket, received } = rawConnection();
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const response = await received;
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(problemOf(response).code).toBe('REQUEST_TIMEOUT');
  });

  it('headers over the configured size get 431 HEADERS_TOO_LARGE problem+json', async () => {
    const { socket, received } = rawConnection();
    socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const response = await received;
    expect(response).toMatch(/^HTTP\/1\.1 431 /);
    expect(response).toMatch(/content-type: application\/problem\+json/i);
    expect(problemOf(response)).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
  });

  it('a request that arrives in time is served on the same listener', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/scraps`, {
      method: 'POST',
      headers: { ...user.auth, 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ content: `served over real HTTP ${Date.now()}` }),
    });
    expect(res.status).toBe(202);
  });
});
