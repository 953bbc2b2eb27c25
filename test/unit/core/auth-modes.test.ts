/** Auth modes (bearer, public, HMAC-signed) on a bare fastify app with the API's problem handler. */
import Fastify, { type FastifyInstance } from 'fastify';
import type { PrismaClient } from '@prisma/client';
import { installAuth, signHmac } from '../../../src/api/auth';
import { installInputRules, rawBodyOf } from '../../../src/api/input-rules';
import { installProblemHandlers } from '../../../src/api/problem';

const SECRET = 'callback-secret';
let app: FastifyInstance;
const received: unknown[] = [];
const rawSeen: string[] = [];

beforeAll(async () => {
  app = Fastify();
  installInputRules(app); // the API's input rules and JSON parser, as in buildApp
  installProblemHandlers(app);
  // Bearer lookups would need the database; these tests never send a token, so none is queried.
  await installAuth(app, {} as PrismaClient);
  app.get('/open', { config: { auth: 'public' } }, async () => ({ ok: true }));
  app.get('/private', async () => ({ ok: true }));
  app.post(
    '/callbacks/:sender',
    { config: { auth: { hmac: { secret: (req) => ((req.params as { sender: string }).sender === 'portal' ? SECRET : null) } } } },
    async (req) => {
      received.push(req.body);
      rawSeen.push(rawBodyOf(req).toString('utf8'));
      return { accepted: true };
    },
  );
  await app.ready();
});
afterAll(() => app.close());

const now = () => String(Math.floor(Date.now() / 1000));
function signed(body: string, opts: { ts?: string; secret?: string; sender?: string } = {}) {
  const ts = opts.ts ?? now();
  return app.inject({
    method: 'POST',
    url: `/callbacks/${opts.sender ?? 'portal'}`,
    headers: { 'content-type': 'application/json', 'x-signature-timestamp': ts, 'x-signature': signHmac(opts.secret ?? SECRET, ts, body) },
    payload: body,
  });
}

it('public routes need no credentials; bearer routes answer 401 problem+json without a token', async () => {
  expect((await app.inject({ url: '/open' })).statusCode).toBe(200);
  const r = await app.inject({ url: '/private' });
  expect(r.statusCode).toBe(401);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(r.headers['www-authenticate']).toBe('Bearer');
  expect(r.json()).toMatchObject({ code: 'UNAUTHORIZED' });
});

it('accepts a request signed over the exact raw bytes', async () => {
  received.length = 0;
  const body = '{"jobId":"j-1",  "status":"done"}';
  const r = await signed(body);
  expect(r.statusCode).toBe(200);
  expect(received).toEqual([{ jobId: 'j-1', status: 'done' }]);
  expect(rawSeen.at(-1)).toBe(body);
});

it.each([
  ['a body changed after signing', () => {
    const ts = now();
    return app.inject({
      method: 'POST', url: '/callbacks/portal', payload: '{"status":"failed"}',
      headers: { 'content-type': 'application/json', 'x-signature-timestamp': ts, 'x-signature': signHmac(SECRET, ts, '{"status":"done"}') },
    });
  }],
  ['the wrong secret', () => signed('{"a":1}', { secret: 'other' })],
  ['an unknown sender', () => signed('{"a":1}', { sender: 'someone' })],
  ['a timestamp outside the clock skew (replay)', () => signed('{"a":1}', { ts: String(Math.floor(Date.now() / 1000) - 3600) })],
  ['a non-numeric timestamp', () => signed('{"a":1}', { ts: 'yesterday' })],
  ['no signature headers', () => app.inject({ method: 'POST', url: '/callbacks/portal', payload: '{"a":1}', headers: { 'content-type': 'application/json' } })],
])('rejects %s with 401 and runs no handler', async (_name, send) => {
  received.length = 0;
  const r = await send();
  expect(r.statusCode).toBe(401);
  expect(r.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  expect(received).toEqual([]);
});

it('verifies before anything parses the body: unsigned malformed JSON is 401, signed malformed JSON is 400', async () => {
  const unsigned = await app.inject({ method: 'POST', url: '/callbacks/portal', payload: '{"a":', headers: { 'content-type': 'application/json' } });
  expect([unsigned.statusCode, unsigned.json().code]).toEqual([401, 'UNAUTHORIZED']);
  const signedBad = await signed('{"a":');
  expect([signedBad.statusCode, signedBad.json().code]).toEqual([400, 'MALFORMED_JSON']);
});
