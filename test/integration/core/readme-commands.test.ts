/**
 * The README's command blocks name real things: every `npm run <script>` is a script of
 * package.json, every `curl` request (method and path, placeholders filled in) reaches a route of
 * the API (without credentials: 401 or its public answer, not 404 or 405), every `temporal` command's workflow
 * type, task queue, Schedule and search attribute is one the code declares, and every file path a
 * block names exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as workflows from '../../../src/workflows';
import { SA_COMPANY_ID, SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID } from '../../../src/core/contracts';
import { QUEUES, SCHEDULES } from '../../../src/families';
import { startStack, type Stack } from '../../support/stack';

const ROOT = path.join(__dirname, '..', '..', '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const SCRIPTS = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

/** The command lines of the README's shell blocks, continuation lines joined, comments cut. */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const [, lang, body] of README.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (!['sh', 'bash', 'shell'].includes(lang ?? '')) continue;
    const joined = (body ?? '').replace(/\\\n\s*/g, ' ');
    for (const raw of joined.split('\n')) {
      const line = raw.replace(/\s+#\s.*$/, '').trim();
      if (line !== '' && !line.startsWith('#')) lines.push(line);
    }
  }
  return lines;
}

const LINES = commandLines();
const SAMPLE_ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

test('the README has shell blocks to check', () => {
  expect(LINES.length).toBeGreaterThan(20);
  expect(LINES.some((l) => l.includes('curl'))).toBe(true);
});

test('every npm run names a script of package.json', () => {
  const named = LINES.flatMap((l) => [...l.matchAll(/npm run (?:-s |--silent )?([a-z][\w:-]*)/g)].map((m) => m[1]!));
  expect(named.length).toBeGreaterThan(5);
  expect(named.filter((s) => !SCRIPTS.includes(s))).toEqual([]);
});

test('every temporal command names a declared workflow type, queue, Schedule and search attribute', () => {
  const temporal = LINES.filter((l) => /^(\$T|\S*temporal) /.test(l));
  expect(temporal.length).toBeGreaterThan(5);
  const types = temporal.flatMap((l) => [...l.matchAll(/--type (\w+)|WorkflowType="(\w+)"/g)].map((m) => m[1] ?? m[2]!));
  expect(types.filter((t) => typeof (workflows as Record<string, unknown>)[t] !== 'function')).toEqual([]);
  const queues = temporal.flatMap((l) => [...l.matchAll(/--task-queue (\S+)/g)].map((m) => m[1]!));
  expect(queues.filter((q) => !QUEUES.some((d) => d.name === q))).toEqual([]);
  const schedules = temporal.flatMap((l) => [...l.matchAll(/--schedule-id (\S+)|--workflow-id (\S+)-run-/g)].map((m) => m[1] ?? m[2]!));
  expect(schedules.length).toBeGreaterThan(0);
  expect(schedules.filter((s) => !SCHEDULES.some((d) => d.name === s))).toEqual([]);
  const known = [SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID, SA_COMPANY_ID].map((k) => k.name).concat(['ExecutionStatus', 'WorkflowType']);
  const attrs = temporal.flatMap((l) => [...l.matchAll(/(\w+)(?:=| IS )/g)].map((m) => m[1]!)).filter((a) => /^[A-Z]/.test(a));
  expect(attrs.filter((a) => !known.includes(a))).toEqual([]);
});

test('every file a command runs or reads exists', () => {
  const files = LINES.flatMap((l) => [...l.matchAll(/(?:^|\s)((?:scripts|src|deploy|prisma|docs)\/[\w./-]+\.\w+)/g)].map((m) => m[1]!));
  expect(files.filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
});

describe('curl requests', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ aiWorker: false, aiRunsWorker: false });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('every one reaches a route of the API', async () => {
    // The API's requests (a worker's metrics port is another server).
    const requests = LINES.filter((l) => l.startsWith('curl ') && /localhost:3000|\$API/.test(l)).map((l) => {
      const method = /-X (\w+)/.exec(l)?.[1] ?? 'GET';
      const target = /(?:localhost:3000|\$API)(\/[^\s"'?]*)/.exec(l)?.[1];
      return { line: l, method, url: target?.replace(/<[^>]+>|\$[A-Z_]+/g, SAMPLE_ID) };
    });
    expect(requests.length).toBeGreaterThan(10);
    const missed: string[] = [];
    for (const r of requests) {
      if (!r.url) {
        missed.push(`no URL: ${r.line}`);
        continue;
      }
      // No credentials: a route answers 401 (or, if public, its own answer) before it looks anything up; only an unknown route answers 404 or 405.
      const res = await stack.app.inject({ method: r.method as 'GET', url: r.url });
      if (res.statusCode === 405 || res.statusCode === 404) missed.push(`${r.method} ${r.url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(missed).toEqual([]);
  });
});
