/**
 * The input rules hold on every route, walked from the routes the app registered (not a hand-picked
 * list): an unknown method → 405 with Allow, a non-UTF-8 charset → 415, a body on a route that
 * declares none → 400 BODY_NOT_ALLOWED, an unknown field on a body route → 400 naming it; all
 * problem+json. Then the canonical forms end to end: NFC and NFD of one AI-run text under one
 * Idempotency-Key are one run, an upper-case company UUID is the same company (same run, same
 * workflow ID), zero-width text is blank, and the signed callback refuses a latin1 charset.
 */
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { registeredRoutes, type RegisteredRoute } from '../../../src/api/input-rules';
import { signedCallbackHeaders } from '../../../src/crypto/callback-signature';
import { startStack, type Stack } from '../../support/stack';
import { companyWithMembers, postRun } from '../ai-runs/support';

let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;
let co: Awaited<ReturnType<typeof companyWithMembers>>;
let routes: readonly RegisteredRoute[];

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
/** Path parameter values that pass their schemas (a UUID for every other name). */
const PARAM_SAMPLES: Record<string, string> = { year: '2026', term: '1', courseCode: 'CS101' };
const CALLBACK_URL = '/internal/scrape-results';
const concrete = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => PARAM_SAMPLES[name] ?? SAMPLE_ID).replace(/\*/g, 'x');

beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: { CODEC_SERVER_OPERATOR_TOKEN: 'operator-token-of-the-input-rules-test' } });
  user = await stack.newUser();
  co = await companyWithMembers(stack);
  routes = registeredRoutes(stack.app);
}, 120_000);
afterAll(async () => stack?.stop());

/** Credentials a route needs to get past authentication (bearer user, operator token, signature). */
function credentials(route: RegisteredRoute, raw: string): Record<string, string> {
  if (route.url === CALLBACK_URL) return signedCallbackHeaders(stack.config.portal.callbackSecrets[0]!, raw, { requestId: `req-${randomUUID()}` });
  if (route.url.startsWith('/codec')) return { authorization: `Bearer ${stack.config.temporal.codecServer.operatorToken}` };
  return user.auth;
}

const send = (route: RegisteredRoute, payload: string, contentType = 'application/json', method = route.method) =>
  stack.app.inject({
    method: method as InjectOptions['method'],
    url: concrete(route.url),
    headers: { ...credentials(route, payload), 'content-type': contentType, 'idempotency-key': randomUUID() },
    payload,
  });

/** [url, status, code] of a problem answer (HEAD answers carry no body: its code is the status's). */
const verdict = (route: RegisteredRoute, res: Awaited<ReturnType<typeof send>>) => {
  const isProblem = /^application\/problem\+json/.test(String(res.headers['content-type']));
  const code = route.method === 'HEAD' ? 'HEAD' : isProblem ? (res.json() as { code: string }).code : `not problem+json: ${res.body.slice(0, 80)}`;
  return [route.method, route.url, res.statusCode, code];
};

describe('every registered route', () => {
  it('the walk covers the API: body routes and body-less routes of every family', () => {
    expect(routes.filter((r) => r.takesBody).length).toBeGreaterThanOrEqual(15);
    expect(routes.filter((r) => !r.takesBody).length).toBeGreaterThanOrEqual(30);
    for (const url of ['/api/v1/ai-runs/:aiRunId/retry', '/api/v1/ai-runs/:aiRunId/cancel', '/study/questions/:questionId/explanation-jobs', CALLBACK_URL, '/metrics', '/openapi.json']) {
      expect(routes.map((r) => r.url)).toContain(url);
    }
  });

  it('an unknown method (QUERY, PROPFIND) or an unserved one → 405 problem+json with Allow, before any body is read', async () => {
    const paths = new Map<string, Set<string>>();
    for (const r of routes) paths.set(r.url, (paths.get(r.url) ?? new Set()).add(r.method));
    const wrong: unknown[] = [];
    for (const [url, methods] of paths) {
      const unserved = ['DELETE', 'PATCH', 'PUT', 'POST'].find((m) => !methods.has(m))!;
      for (const [method, headers] of [['QUERY', {}], ['PROPFIND', {}], [unserved, { 'content-type': 'application/json; charset=latin1' }]] as const) {
        const res = await stack.app.inject({ method: method as InjectOptions['method'], url: concrete(url), headers: { ...user.auth, ...headers }, ...(method === unserved ? { payload: '{"x":1}' } : {}) });
        const allow = String(res.headers.allow ?? '').split(', ');
        const ok = res.statusCode === 405 && res.json().code === 'METHOD_NOT_ALLOWED' && /^application\/problem\+json/.test(String(res.headers['content-type'])) &&
          [...methods].every((m) => allow.includes(m));
        if (!ok) wrong.push([method, url, res.statusCode, res.headers.allow, res.body.slice(0, 120)]);
      }
    }
    expect(wrong).toEqual([]);
    expect(paths.size).toBeGreaterThanOrEqual(40);
  });

  it('a body with a charset other than UTF-8 → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const wrong: unknown[] = [];
    for (const route of routes) {
      for (const type of ['application/json; charset=iso-8859-1', 'application/json; charset="latin1"', 'application/x-www-form-urlencoded; charset=windows-1252']) {
        const v = verdict(route, await send(route, '{"a":1}', type));
        const want = [route.method, route.url, 415, route.method === 'HEAD' ? 'HEAD' : 'UNSUPPORTED_MEDIA_TYPE'];
        if (JSON.stringify(v) !== JSON.stringify(want)) wrong.push([type, ...v]);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a route that declares no body refuses one: 400 BODY_NOT_ALLOWED ("retry", [1,2,3], an object, any media type)', async () => {
    const wrong: unknown[] = [];
    for (const route of routes.filter((r) => !r.takesBody)) {
      for (const [payload, type] of [['"retry"', 'application/json'], ['[1,2,3]', 'application/json'], ['{"unknown":true}', 'application/json; charset=utf-8'], ['retry', 'text/plain']]) {
        const v = verdict(route, await send(route, payload!, type));
        const want = [route.method, route.url, 400, route.method === 'HEAD' ? 'HEAD' : 'BODY_NOT_ALLOWED'];
        if (JSON.stringify(v) !== JSON.stringify(want)) wrong.push([payload, ...v]);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a route that declares a body refuses an unknown field: 400 VALIDATION_FAILED naming it', async () => {
    const wrong: unknown[] = [];
    for (const route of routes.filter((r) => r.takesBody)) {
      // The callback body is a union on `status`: an otherwise valid failure report carries the field.
      const body = route.url === CALLBACK_URL ? { job_id: SAMPLE_ID, status: 'FAILED', error_code: 'X', error_message: 'm', sneaky: 1 } : { sneaky: 1 };
      const res = await send(route, JSON.stringify(body));
      const named = res.statusCode === 400 && (res.json() as { errors?: { path: string; message: string }[] }).errors?.some((e) => e.path === 'body.sneaky' && e.message === 'unknown field');
      if (!named || res.json().code !== 'VALIDATION_FAILED') wrong.push([...verdict(route, res), res.body.slice(0, 200)]);
    }
    expect(wrong).toEqual([]);
  });
});

describe('canonical input', () => {
  const text = 'Bitte eine Bescheinigung für René, Ärztin, bis Freitag';

  it('the NFC and NFD forms of one AI-run text under one Idempotency-Key are one run', async () => {
    const key = randomUUID();
    const before = await stack.db.aiRun.count({ where: { companyId: co.companyId } });
    const nfc = await postRun(stack, co.hr.auth, key, { companyId: co.companyId, text: text.normalize('NFC') });
    const nfd = await postRun(stack, co.hr.auth, key, { companyId: co.companyId, text: text.normalize('NFD') });
    expect(text.normalize('NFC')).not.toBe(text.normalize('NFD'));
    expect([nfc.statusCode, nfd.statusCode]).toEqual([202, 202]);
    expect(nfd.json().aiRunId).toBe(nfc.json().aiRunId);
    expect(await stack.db.aiRun.count({ where: { companyId: co.companyId } })).toBe(before + 1);
  });

  it('an upper-case company UUID is the same company: the same run under the same key, a lower-case workflow ID under another', async () => {
    const key = randomUUID();
    const lower = await postRun(stack, co.hr.auth, key, { companyId: co.companyId, text: `${text} (case)` });
    const upper = await postRun(stack, co.hr.auth, key, { companyId: co.companyId.toUpperCase(), text: `${text} (case)` });
    expect([lower.statusCode, upper.statusCode]).toEqual([202, 202]);
    expect(upper.json()).toMatchObject({ aiRunId: lower.json().aiRunId, companyId: co.companyId });

    const other = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId.toUpperCase(), text: `${text} (other)` });
    expect(other.statusCode).toBe(202);
    const row = await stack.db.aiRun.findUniqueOrThrow({ where: { id: other.json().aiRunId } });
    expect(row.companyId).toBe(co.companyId);
    expect(row.workflowId).toBe(row.workflowId.toLowerCase());
    expect(row.workflowId).toContain(co.companyId);

    const read = await stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${row.id.toUpperCase()}`, headers: co.hr.auth });
    expect([read.statusCode, read.json().aiRunId]).toEqual([200, row.id]);
  });

  it('AI-run text of only invisible characters is blank: 400 VALIDATION_FAILED on body.text, no run', async () => {
    for (const blank of ['\u200b\u200c\u200d', '\u2060\ufeff', ' \u3164\u00ad ', '\u0085\u2028']) {
      const res = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text: blank });
      expect([res.statusCode, res.json().code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(res.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.text' })]));
    }
  });

  it('the signed callback refuses a latin1 charset (415) even when the signature is good, and still verifies the exact bytes', async () => {
    const raw = JSON.stringify({ job_id: randomUUID(), status: 'FAILED', error_code: 'X', error_message: 'caf\u00e9' });
    const headers = signedCallbackHeaders(stack.config.portal.callbackSecrets[0]!, raw);
    const latin1 = await stack.app.inject({ method: 'POST', url: CALLBACK_URL, headers: { ...headers, 'content-type': 'application/json; charset=latin1' }, payload: raw });
    expect([latin1.statusCode, latin1.json().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // The same text re-encoded (NFD) is other bytes: the signature no longer matches.
    const changed = await stack.app.inject({ method: 'POST', url: CALLBACK_URL, headers: { ...headers, 'content-type': 'application/json' }, payload: raw.normalize('NFD') });
    expect([changed.statusCode, changed.json().code]).toEqual([401, 'CALLBACK_SIGNATURE_INVALID']);
    // The exact bytes pass the signature (the job is unknown: 404).
    const exact = await stack.app.inject({ method: 'POST', url: CALLBACK_URL, headers: { ...headers, 'content-type': 'application/json' }, payload: raw });
    expect(exact.statusCode).toBe(404);
  });
});
