/**
 * AR-6/AR-9 as a property: sensitive values (phone numbers, e-mail addresses, resident registration
 * numbers, card and account numbers: what the masker detects) planted at any word boundary of a
 * run's input never appear in any database row, any API response, any log line (the API's and the
 * workers' pino output) or the run's history read without the payload codec — whether the runtime
 * is the local one (which copies an address or a name into a slot) or a hostile one that echoes the
 * input into the title and a slot, into a malformed body quoted by JSON.parse, or into its error.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Runtime } from '@temporalio/worker';
import fc from 'fast-check';
import { createAiRuntimeActivities } from '../../../src/activities/ai-runs/runtime-call';
import { findSensitive } from '../../../src/domain/ai-runs/sensitive';
import { aiRuntimeCallerOf, classifyRuntimeError, type AiRuntimeCaller } from '../../../src/services/ai-runs/runtime-caller';
import { createLocalAiRuntimeClient, MalformedResponseError, RuntimeRejectedError } from '../../../src/services/ai-runs/runtime-client';
import { CONTRACT_VERSION } from '../../../src/domain/ai-runs/contract';
import { localVersions } from '../../../src/services/ai-runs/runtime-client/local';
import { createLogger, temporalLogger } from '../../../src/log';
import { captureJsonLogs } from '../../support/log-capture';
import { startStack, type Stack } from '../../support/stack';
import { companyWithMembers, postRun, waitForRun } from './support';

type Mode = 'local' | 'echo' | 'malformed' | 'rejected';

const logs = captureJsonLogs();
let stack: Stack;
let co: Awaited<ReturnType<typeof companyWithMembers>>;
let mode: Mode = 'local';
let tables: string[] = [];

const local = aiRuntimeCallerOf(createLocalAiRuntimeClient(), 10_000);
/** The runtime of the current `mode`: the local one, or one that echoes the input wherever it can. */
const caller: AiRuntimeCaller = {
  async call(req, signal) {
    if (mode === 'local') return local.call(req, signal);
    if (mode === 'malformed') {
      let cause: unknown;
      try {
        JSON.parse(`${req.text}}`);
      } catch (err) {
        cause = err;
      }
      throw new MalformedResponseError(`AI runtime: HTTP 200 body is not JSON: ${req.text}`, { cause });
    }
    if (mode === 'rejected') throw new RuntimeRejectedError(`AI runtime rejected the request "${req.text}"`);
    const answer = {
      contractVersion: CONTRACT_VERSION,
      requestId: req.requestId,
      // A version label has no spaces: the first word that could be a planted value.
      versions: { ...localVersions(), agent: `echo/${req.text.split(' ').find((w) => /\d{3}|@/.test(w)) ?? 'none'}`.slice(0, 128) },
      candidates: [{ taskType: 'ADDRESS_CHANGE', title: `Address: ${req.text}`.slice(0, 200), slots: { newAddress: req.text.slice(0, 500) }, missingSlots: [], confidence: 0.9 }],
      ambiguity: { ambiguous: false, reasons: [] },
    };
    return { answer, traceId: req.text.slice(0, 40) };
  },
};

beforeAll(async () => {
  // The workers' log lines (activity and worker logs) through the project's pino bridge, captured.
  // (The SDK's documented way to set its logger after Runtime.install: assign Runtime.logger.)
  Object.assign(Runtime.instance(), { logger: temporalLogger(createLogger('debug', 'worker', logs.stream)) });
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, logger: createLogger('debug', 'api', logs.stream) });
  await stack.startAiRunsWorker(createAiRuntimeActivities({ caller, classify: classifyRuntimeError, heartbeatEveryMs: 200 }));
  co = await companyWithMembers(stack);
  const rows = await stack.db.$queryRaw<{ name: string }[]>`SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
  tables = rows.map((r) => r.name);
}, 120_000);
afterAll(async () => stack?.stop());

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
const sep = fc.constantFrom('-', ' ', '');

/** Luhn check digit of `body` (ISO/IEC 7812). */
function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

const phone = fc.oneof(
  fc.tuple(fc.constantFrom('010', '011', '016', '019'), digits(4), digits(4), fc.constantFrom('-', ' ', '', '.')).map(([a, b, c, s]) => `${a}${s}${b}${s}${c}`),
  fc.tuple(fc.constantFrom('02', '031', '051'), digits(3), digits(4)).map(([a, b, c]) => `${a}-${b}-${c}`),
  fc.tuple(digits(4), digits(4)).map(([b, c]) => `+82 10-${b}-${c}`),
);
const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{2,9}$/), fc.constantFrom('.', '_', ''), fc.stringMatching(/^[a-z0-9]{1,6}$/), fc.stringMatching(/^[a-z]{3,8}$/), fc.constantFrom('com', 'co.kr', 'org', 'io'))
  .map(([a, s, b, host, tld]) => `${a}${s}${b}@${host}.${tld}`);
const rrn = fc
  .tuple(digits(2), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 4 }), digits(6), fc.constantFrom('-', ''))
  .map(([yy, mm, dd, g, rest, s]) => `${yy}${String(mm).padStart(2, '0')}${String(dd).padStart(2, '0')}${s}${g}${rest}`);
const card = fc.tuple(fc.constantFrom('4', '5', '3'), digits(14), sep).map(([first, body, s]) => {
  const pan = `${first}${body}${luhnDigit(`${first}${body}`)}`;
  return s ? pan.match(/\d{4}/g)!.join(s) : pan;
});
const account = fc.tuple(digits(3), digits(3), digits(6)).map(([a, b, c]) => `${a}-${b}-${c}`);

/** A value the masker detects as a whole, so it must never be seen. */
const sensitive = fc.oneof(phone, email, rrn, card, account).filter((v) => {
  const spans = findSensitive(` ${v} `);
  return spans.length === 1 && spans[0]!.start === 1 && spans[0]!.end === v.length + 1;
});

const BASES = [
  'I moved, my new address is 12 Teheran-ro, Gangnam-gu, Seoul from 2026-12-01 please update it',
  '새 주소는 서울시 강남구 테헤란로 12 입니다 으로 변경해 주세요',
  'I need an employment certificate for my visa by Friday, my name is Minji Kim',
  '재직증명서 2부 필요합니다. 제 이름은 김민지입니다',
  'Please reimburse ₩35,000 for the taxi to the client on 2026-11-20',
];
const input = fc.record({
  base: fc.constantFrom(...BASES),
  planted: fc.array(fc.tuple(sensitive, fc.nat()), { minLength: 1, maxLength: 3 }),
  mode: fc.constantFrom<Mode>('local', 'local', 'echo', 'malformed', 'rejected'),
});

/** The forms of `v` that must not be seen: itself, and its digits alone when it is mostly digits. */
function forms(v: string): string[] {
  const d = v.replace(/\D/g, '');
  return d.length >= 9 && d.length >= v.length - 4 ? [v, d] : [v];
}

/** Every row of every table of the test database, as JSON text. */
async function everyRow(): Promise<string> {
  const parts: string[] = [];
  for (const t of tables) {
    const [row] = await stack.db.$queryRawUnsafe<{ rows: string | null }[]>(`SELECT json_agg(t)::text AS rows FROM "${t.replaceAll('"', '""')}" t`);
    parts.push(`${t}: ${row?.rows ?? ''}`);
  }
  return parts.join('\n');
}

test('no planted sensitive value appears in a row, a response, a log line or the codec-less history', async () => {
  const plain = new Client({ connection: stack.client.connection, namespace: stack.config.temporal.namespace });
  let runs = 0;
  const outcomes = new Set<string>();
  await fc.assert(
    fc.asyncProperty(input, async ({ base, planted, mode: m }) => {
      mode = m;
      const words = base.split(' ');
      for (const [value, at] of planted) words.splice(at % (words.length + 1), 0, value);
      const text = words.join(' ');
      const post = await postRun(stack, co.hr.auth, randomUUID(), { companyId: co.companyId, text });
      expect(post.statusCode).toBe(202);
      const runId = (post.json() as { aiRunId: string }).aiRunId;
      const run = await waitForRun(stack, co.hr.auth, runId);
      outcomes.add(`${m}:${run.status}:${run.candidates.some((c) => c.blocked) ? 'blocked' : 'clear'}`);
      const [get, list] = await Promise.all([
        stack.app.inject({ method: 'GET', url: `/api/v1/ai-runs/${runId}`, headers: co.hr.auth }),
        stack.app.inject({ method: 'GET', url: `/api/v1/companies/${co.companyId}/ai-runs`, headers: co.hr.auth }),
      ]);
      const row = await stack.db.aiRun.findUniqueOrThrow({ where: { id: runId } });
      const history = await plain.workflow.getHandle(row.workflowId).fetchHistory();
      const seen: Record<string, string> = {
        responses: [post.body, get.body, list.body].join('\n'),
        rows: await everyRow(),
        logs: logs.lines.map((l) => JSON.stringify(l)).join('\n'),
        history: Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1'),
      };
      runs += 1;
      for (const [value] of planted) {
        for (const form of forms(value)) {
          for (const [where, content] of Object.entries(seen)) {
            if (content.includes(form)) throw new Error(`${JSON.stringify(form)} (planted in ${JSON.stringify(text)}, mode ${m}) appears in the ${where}`);
          }
        }
      }
    }),
    { numRuns: 24, seed: 19, endOnFailure: true },
  );
  expect(runs).toBeGreaterThanOrEqual(24);
  // Not vacuous: the local runtime's candidates and the hostile runtime's blocked and failed runs were all exercised.
  expect([...outcomes].some((o) => o.startsWith('local:SUCCEEDED'))).toBe(true);
  expect([...outcomes]).toEqual(expect.arrayContaining(['echo:SUCCEEDED:blocked', 'malformed:FAILED:clear', 'rejected:FAILED:clear']));
  expect(logs.lines.length).toBeGreaterThan(0);
}, 600_000);
