/**
 * AR-6 on the real Temporal dev server: the services' clients and workers encrypt payloads, so a
 * history read WITHOUT the codec holds no raw input while the codec decodes it; the codec server
 * (POST /codec/decode, /codec/encode) round-trips the Web UI's JSON payloads for an operator only,
 * with CORS for the Web UI's origin, and decrypts payloads of a rotated-out key id.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, parsePayloadKeys } from '../../../src/crypto/payload-codec';
import { jobWorkflowId } from '../../../src/core/contracts';
import { findTemporalCli } from '../../../src/dev/temporal-server';
import { CODEC_SESSION_COOKIE, isValidSession, newSessionValue } from '../../../src/api/routes/core/codec';
import { startStack, waitForJob, type Stack } from '../../support/stack';

const MARKER = `RAW-INPUT-MARKER-${randomUUID()}`;
const OLD = `old:${randomBytes(32).toString('base64')}`;
const NEW = `new:${randomBytes(32).toString('base64')}`;
const OPERATOR = `op-${randomBytes(24).toString('hex')}`;
const UI_ORIGIN = 'http://127.0.0.1:8233';

let stack: Stack;
let plainClient: Client;

beforeAll(async () => {
  stack = await startStack({ env: { PAYLOAD_CODEC_KEYS: `${NEW},${OLD}`, CODEC_SERVER_OPERATOR_TOKEN: OPERATOR, TEMPORAL_UI_URL: UI_ORIGIN } });
  // A client of the same server WITHOUT the codec: what anyone reading Temporal's storage sees.
  plainClient = new Client({ connection: stack.client.connection, namespace: stack.config.temporal.namespace });
});
afterAll(async () => {
  await stack?.stop();
});

const historyBytes = (h: temporal.api.history.v1.IHistory) => Buffer.from(temporal.api.history.v1.History.encode(h).finish());

/** Every Payload-shaped object in a history (inputs, results, memos, heartbeats …). */
function payloadsOf(value: unknown, out: Payload[] = []): Payload[] {
  if (!value || typeof value !== 'object' || value instanceof Uint8Array) return out;
  const v = value as Record<string, unknown>;
  if (v.data instanceof Uint8Array && v.metadata && typeof v.metadata === 'object') out.push(v as Payload);
  for (const child of Object.values(v)) payloadsOf(child, out);
  return out;
}

async function decodedText(history: temporal.api.history.v1.IHistory): Promise<string> {
  const codec = new AesGcmPayloadCodec(parsePayloadKeys(`${NEW},${OLD}`));
  const decoded = await codec.decode(payloadsOf(history));
  return decoded.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8')).join('\n');
}

const toUi = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, b]) => [k, Buffer.from(b!).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});
const fromUi = (p: { metadata: Record<string, string>; data: string }): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, b]) => [k, new Uint8Array(Buffer.from(b, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data, 'base64')),
});
const operator = { authorization: `Bearer ${OPERATOR}` };

describe('histories hold ciphertext', () => {
  it('a workflow input and memo with a marker: absent from the history read without the codec, present when decoded', async () => {
    const workflowId = `codec-noop-${randomUUID()}`;
    const result = await stack.client.workflow.execute('noopWorkflow', {
      workflowId,
      taskQueue: stack.queues.jobs,
      args: [{ text: `my phone is 010-1234-5678 ${MARKER}` }],
      memo: { note: MARKER },
    });
    expect(result).toBe('ok'); // the worker decoded the input and the client decoded the result
    const history = await plainClient.workflow.getHandle(workflowId).fetchHistory();
    expect(historyBytes(history).includes(MARKER)).toBe(false);
    expect(historyBytes(history).includes('010-1234-5678')).toBe(false);
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(Buffer.from(started.input!.payloads![0]!.metadata!.encoding!).toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(started.input!.payloads![0]!.metadata!['encryption-key-id']!).toString()).toBe('new');
    expect(await decodedText(history)).toContain(MARKER);
    // The plain client sees ciphertext it cannot read as JSON.
    await expect(plainClient.workflow.getHandle(workflowId).result()).rejects.toThrow();
  });

  it('a SAN job through the API, the jobs and ai workers: its activity payloads carry no plaintext of the scrap', async () => {
    const user = await stack.newUser();
    const content = `${MARKER} explains how PostgreSQL B-tree indexes speed up range scans. An index stores sorted keys with pointers to heap tuples, so lookups avoid full table scans.`;
    const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });
    expect(res.statusCode).toBe(202);
    const { scrapId, analysisJobId } = res.json() as { scrapId: string; analysisJobId: string };
    expect(await waitForJob(stack, analysisJobId, user.auth)).toMatchObject({ status: 'COMPLETED' });
    const history = await plainClient.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', scrapId)).fetchHistory();
    expect(historyBytes(history).includes(MARKER)).toBe(false);
    expect(historyBytes(history).includes('B-tree')).toBe(false);
    // Decoded, the analysis (title, summary from the text) is there: the check above is not vacuous.
    expect(await decodedText(history)).toMatch(/B-tree|PostgreSQL/);
  });
});

describe('codec server POST /codec/decode, /codec/encode', () => {
  const marker = (p: Payload) => defaultPayloadConverter.fromPayload(p);

  it('encode then decode round-trips the Web UI JSON payloads', async () => {
    const original = defaultPayloadConverter.toPayload({ text: MARKER });
    const enc = await stack.app.inject({ method: 'POST', url: '/codec/encode', headers: { ...operator, 'x-namespace': 'default' }, payload: { payloads: [toUi(original)] } });
    expect(enc.statusCode).toBe(200);
    const encrypted = (enc.json() as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads;
    expect(Buffer.from(encrypted[0]!.metadata.encoding!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
    expect(JSON.stringify(encrypted)).not.toContain(Buffer.from(MARKER).toString('base64').slice(0, 16));
    const dec = await stack.app.inject({ method: 'POST', url: '/codec/decode', headers: operator, payload: { payloads: encrypted } });
    expect(dec.statusCode).toBe(200);
    const decoded = (dec.json() as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads.map(fromUi);
    expect(decoded.map(marker)).toEqual([{ text: MARKER }]);
  });

  it('decodes a payload of the rotated-out key id, passes unencrypted ones through, keeps an undecodable one as is', async () => {
    const [byOld] = await new AesGcmPayloadCodec(parsePayloadKeys(OLD)).encode([defaultPayloadConverter.toPayload('old-key secret')]);
    const [byStranger] = await new AesGcmPayloadCodec(parsePayloadKeys(`gone:${randomBytes(32).toString('base64')}`)).encode([defaultPayloadConverter.toPayload('x')]);
    const clear = defaultPayloadConverter.toPayload('never encrypted');
    const dec = await stack.app.inject({ method: 'POST', url: '/codec/decode', headers: operator, payload: { payloads: [byOld, clear, byStranger].map((p) => toUi(p!)) } });
    expect(dec.statusCode).toBe(200);
    const out = (dec.json() as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads.map(fromUi);
    expect(marker(out[0]!)).toBe('old-key secret');
    expect(marker(out[1]!)).toBe('never encrypted');
    expect(Buffer.from(out[2]!.metadata!.encoding!).toString()).toBe(ENCRYPTED_ENCODING);
  });

  it.each([
    ['no credentials', {}],
    ['a wrong operator token', { authorization: 'Bearer not-the-operator-token' }],
    ['a cookie that is not the session', { cookie: 'codec_operator=forged' }],
  ])('refuses %s with 401 problem+json', async (_what, headers) => {
    const res = await stack.app.inject({ method: 'POST', url: '/codec/decode', headers, payload: { payloads: [] } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('refuses a user API token: decoding is for operators', async () => {
    const user = await stack.newUser();
    const res = await stack.app.inject({ method: 'POST', url: '/codec/encode', headers: user.auth, payload: { payloads: [] } });
    expect(res.statusCode).toBe(401);
  });

  it('a malformed body is 400 VALIDATION_FAILED', async () => {
    const res = await stack.app.inject({ method: 'POST', url: '/codec/decode', headers: operator, payload: { payloads: [{ data: 'not base64!' }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('CORS: the Web UI origin may call with credentials; another origin is not allowed', async () => {
    const preflight = await stack.app.inject({
      method: 'OPTIONS',
      url: '/codec/decode',
      headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('x-namespace');
    const other = await stack.app.inject({ method: 'OPTIONS', url: '/codec/decode', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const refused = await stack.app.inject({ method: 'POST', url: '/codec/decode', headers: { origin: UI_ORIGIN }, payload: { payloads: [] } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(UI_ORIGIN); // the UI can read the 401
  });

  it('browser sign-in: POST /codec/session with the token sets an HttpOnly cookie that authorises the UI’s calls', async () => {
    const bad = await stack.app.inject({ method: 'POST', url: '/codec/session', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'token=wrong' });
    expect(bad.statusCode).toBe(401);
    const res = await stack.app.inject({ method: 'POST', url: '/codec/session', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${OPERATOR}` });
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^codec_operator=[^;]+; Path=\/codec; HttpOnly; SameSite=Strict/);
    expect(setCookie).not.toContain(OPERATOR);
    const cookie = setCookie.split(';')[0]!;
    const dec = await stack.app.inject({ method: 'POST', url: '/codec/decode', headers: { cookie, origin: UI_ORIGIN }, payload: { payloads: [] } });
    expect(dec.statusCode).toBe(200);
    expect(dec.json()).toEqual({ payloads: [] });
  });

  it('a session cookie expires on the server, is bound to the operator token, and cannot be altered', async () => {
    const decode = (value: string) =>
      stack.app.inject({ method: 'POST', url: '/codec/decode', headers: { cookie: `${CODEC_SESSION_COOKIE}=${value}`, origin: UI_ORIGIN }, payload: { payloads: [] } });
    const now = new Date();
    const fresh = newSessionValue(OPERATOR, now);
    expect((await decode(fresh)).statusCode).toBe(200);
    // Signed correctly but past its expiry (a copied cookie kept beyond the session's lifetime).
    const expired = newSessionValue(OPERATOR, new Date(now.getTime() - 9 * 3600_000));
    expect(isValidSession(expired, OPERATOR, now)).toBe(false);
    expect((await decode(expired)).statusCode).toBe(401);
    // Signed with an earlier operator token: rotating the token ends every session.
    expect((await decode(newSessionValue(`${OPERATOR}-rotated-away`, now))).statusCode).toBe(401);
    // The expiry pushed forward or the session id changed: the signature does not match.
    const [v, id, exp, mac] = fresh.split('.') as [string, string, string, string];
    expect((await decode([v, id, String(Number(exp) + 86_400), mac].join('.'))).statusCode).toBe(401);
    expect((await decode([v, `${id}x`, exp, mac].join('.'))).statusCode).toBe(401);
    // Two sign-ins get two sessions (a session id each).
    expect(newSessionValue(OPERATOR, now)).not.toBe(fresh);
  });
});

describe('the Temporal CLI through the codec server', () => {
  const cli = findTemporalCli();
  const show = async (workflowId: string, codec: string[]) => {
    const { stdout } = await promisify(execFile)(
      cli!,
      ['workflow', 'show', '--address', stack.config.temporal.address, '--workflow-id', workflowId, '--output', 'json', ...codec],
      { timeout: 30_000 },
    );
    return stdout;
  };

  it('`temporal workflow show --codec-endpoint … --codec-auth` shows the decoded input; without it, ciphertext', async () => {
    if (!cli) throw new Error('the Temporal CLI is missing: run scripts/setup.sh');
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    const endpoint = `http://127.0.0.1:${(stack.app.server.address() as AddressInfo).port}/codec`;
    const workflowId = `codec-cli-${randomUUID()}`;
    await stack.client.workflow.execute('noopWorkflow', { workflowId, taskQueue: stack.queues.jobs, args: [{ text: MARKER }] });
    // The CLI prints payload bytes as base64: read the started event's input payload.
    const input = (stdout: string) => {
      const h = JSON.parse(stdout) as { events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { metadata: Record<string, string>; data: string }[] } } }[] };
      const p = h.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!;
      return { encoding: Buffer.from(p.metadata.encoding!, 'base64').toString(), data: Buffer.from(p.data, 'base64').toString() };
    };
    const raw = input(await show(workflowId, []));
    expect(raw.encoding).toBe(ENCRYPTED_ENCODING);
    expect(raw.data).not.toContain(MARKER);
    const decoded = input(await show(workflowId, ['--codec-endpoint', endpoint, '--codec-auth', `Bearer ${OPERATOR}`]));
    expect(decoded).toEqual({ encoding: 'json/plain', data: JSON.stringify({ text: MARKER }) });
  });
});
