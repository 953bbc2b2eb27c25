/**
 * AR-6: EVERY Temporal client and worker of the project applies the payload codec. Checked over the
 * sources (src, scripts, test), so a new worker entry point or test client without it fails here:
 * each `Worker.create(…)`, replay call, Temporal `new Client(…)` and test environment passes a
 * `dataConverter` (src/crypto/payload-codec.ts `temporalDataConverter`, or the tests' `testDataConverter`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : files(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Callee and argument text of each call matching `callee` (balanced parentheses), outside comments. */
function calls(source: string, callee: RegExp): { callee: string; args: string }[] {
  const out: { callee: string; args: string }[] = [];
  for (const m of source.matchAll(new RegExp(callee.source, 'g'))) {
    const line = source.slice(source.lastIndexOf('\n', m.index) + 1, m.index);
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
    let depth = 0;
    let i = m.index + m[0].length - 1; // at the opening parenthesis
    const start = i;
    for (; i < source.length; i++) {
      if (source[i] === '(') depth++;
      else if (source[i] === ')' && --depth === 0) break;
    }
    out.push({ callee: m[0].slice(0, -1), args: source.slice(start, i + 1) });
  }
  return out;
}

/** Calls that carry no payloads, with the reason. */
const EXEMPT: Record<string, string> = {
  // The SDK-download fallback only starts the dev server; its client is never used.
  'src/dev/temporal-server.ts TestWorkflowEnvironment.createLocal': 'starts a server, sends no payloads',
  // On purpose: the client WITHOUT the codec that shows histories hold ciphertext.
  'test/integration/core/payload-codec.test.ts new Client': 'reads histories as an outsider would',
  'test/integration/ai-runs/runs.test.ts new Client': 'reads an AI run\'s history as an outsider would (AR-6)',
  'test/integration/portal/link-jobs.test.ts new Client': 'reads a portal link job\'s history as an outsider would (the password is ciphertext there)',
};

const sources = ['src', 'scripts', 'test'].flatMap((d) => files(path.join(root, d))).filter((f) => !f.endsWith('payload-codec-wiring.test.ts'));

/** Calls to check, and whether a file's calls count (e.g. only Temporal's `Client`: pg has one too). */
const CALLEES: [RegExp, (source: string) => boolean][] = [
  [/\bWorker\.create\(/, () => true],
  [/\bWorker\.runReplayHistor(?:y|ies)\(/, () => true],
  [/\bTestWorkflowEnvironment\.create\w*\(/, () => true],
  [/\bnew Client\(/, (s) => /import \{[^}]*\bClient\b[^}]*\} from '@temporalio\/client'/.test(s)],
];

describe('every Temporal client and worker applies the payload codec', () => {
  const found: { where: string; ok: boolean }[] = [];
  for (const file of sources) {
    const source = readFileSync(file, 'utf8');
    const rel = path.relative(root, file).split(path.sep).join('/');
    for (const [re, applies] of CALLEES) {
      if (!applies(source)) continue;
      for (const { callee, args } of calls(source, re)) {
        const exempt = `${rel} ${callee}` in EXEMPT;
        found.push({ where: `${rel}: ${callee}${args.slice(0, 60).replace(/\s+/g, ' ')}…`, ok: exempt || /\bdataConverter\b/.test(args) });
      }
    }
  }

  it('finds the project’s clients and workers (the check is not vacuous)', () => {
    expect(found.filter((f) => f.where.includes('Worker.create')).length).toBeGreaterThanOrEqual(7);
    expect(found.filter((f) => f.where.includes('new Client')).length).toBeGreaterThanOrEqual(4);
  });

  it('each passes a dataConverter', () => {
    expect(found.filter((f) => !f.ok).map((f) => f.where)).toEqual([]);
  });
});
