/** AR-3/AR-4/AR-5/DC-3: every transition of the ai_runs state machine, allowed and forbidden, per actor; ai_attempts and ai_candidates. */
import { AI_ATTEMPT_STATES, AI_CANDIDATE_STATES, AI_RUN_STATES, AI_RUN_STATUSES, type AiRunStatus } from '../../../src/domain/ai-runs/run-state';

const canRunTransition = AI_RUN_STATES.canTransition;
const runSourcesOf = AI_RUN_STATES.sourcesOf;

const WORKER_ALLOWED: readonly [AiRunStatus, AiRunStatus][] = [
  ['QUEUED', 'RUNNING'],
  ['QUEUED', 'FAILED'],
  ['RUNNING', 'RETRYING'],
  ['RUNNING', 'SUCCEEDED'],
  ['RUNNING', 'FAILED'],
  ['RETRYING', 'RUNNING'],
  ['RETRYING', 'FAILED'],
];
const MANUAL_ALLOWED: readonly [AiRunStatus, AiRunStatus][] = [['FAILED', 'RETRYING']];

const pairs = AI_RUN_STATUSES.flatMap((from) => AI_RUN_STATUSES.map((to) => [from, to] as [AiRunStatus, AiRunStatus]));
const has = (list: readonly [AiRunStatus, AiRunStatus][], [a, b]: [AiRunStatus, AiRunStatus]) => list.some(([x, y]) => x === a && y === b);

describe('ai run state machine', () => {
  test.each(pairs)('worker %s → %s', (from, to) => {
    expect(canRunTransition(from, to, 'worker')).toBe(has(WORKER_ALLOWED, [from, to]));
  });

  test.each(pairs)('manual retry %s → %s', (from, to) => {
    expect(canRunTransition(from, to, 'manual-retry')).toBe(has(MANUAL_ALLOWED, [from, to]));
  });

  test('the guards of the updates are the allowed sources', () => {
    expect(runSourcesOf('RUNNING')).toEqual(['QUEUED', 'RETRYING']);
    expect(runSourcesOf('RETRYING')).toEqual(['RUNNING']);
    expect(runSourcesOf('RETRYING', 'manual-retry')).toEqual(['FAILED']);
    expect(runSourcesOf('SUCCEEDED')).toEqual(['RUNNING']);
    expect(runSourcesOf('FAILED')).toEqual(['QUEUED', 'RUNNING', 'RETRYING']);
    expect(runSourcesOf('QUEUED')).toEqual([]);
  });

  test('SUCCEEDED and FAILED are finished; nothing leaves SUCCEEDED', () => {
    expect(AI_RUN_STATUSES.filter(AI_RUN_STATES.isTerminal)).toEqual(['SUCCEEDED', 'FAILED']);
    expect(AI_RUN_STATES.active).toEqual(['QUEUED', 'RUNNING', 'RETRYING']);
    for (const to of AI_RUN_STATUSES) {
      expect(canRunTransition('SUCCEEDED', to, 'worker')).toBe(false);
      expect(canRunTransition('SUCCEEDED', to, 'manual-retry')).toBe(false);
    }
  });
});

describe('ai attempt and candidate state machines', () => {
  test('an attempt ends once, from RUNNING', () => {
    expect(AI_ATTEMPT_STATES.edges().map((e) => `${e.from}->${e.to}`)).toEqual(['RUNNING->SUCCEEDED', 'RUNNING->FAILED']);
    expect(AI_ATTEMPT_STATES.terminal).toEqual(['SUCCEEDED', 'FAILED']);
  });

  test('a candidate is decided once, from PROPOSED (AR-5)', () => {
    expect(AI_CANDIDATE_STATES.edges().map((e) => `${e.from}->${e.to}`)).toEqual(['PROPOSED->ADOPTED', 'PROPOSED->DISCARDED']);
    expect(AI_CANDIDATE_STATES.canTransition('ADOPTED', 'DISCARDED')).toBe(false);
  });
});

describe('AI-run config (AR-6)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadConfig } = require('../../../src/families') as typeof import('../../../src/families');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ConfigError } = require('../../../src/config') as typeof import('../../../src/config');
  const k = Buffer.alloc(32, 7).toString('base64');
  const prod = { NODE_ENV: 'production', GITHUB_TOKEN_KEYS: `g:${k}`, WEBHOOK_SECRET_KEYS: `w:${k}`, PAYLOAD_CODEC_KEYS: `p:${k}`, PORTAL_CALLBACK_SECRETS: 'p'.repeat(32) };

  test('production fails fast without the input-hash key or the input key ring; dev keys elsewhere', () => {
    expect(() => loadConfig(prod)).toThrow(ConfigError);
    expect(() => loadConfig({ ...prod, AI_INPUT_HASH_KEY: 'x'.repeat(32) })).toThrow(/AI_RUN_INPUT_KEYS/);
    const c = loadConfig({ ...prod, AI_INPUT_HASH_KEY: 'x'.repeat(32), AI_RUN_INPUT_KEYS: `r:${k}`, AI_RUNTIME_FAIL_FIRST_MARKER: '[x]' });
    expect(c.aiRuns.faults).toEqual({}); // demo faults are ignored in production
    expect(loadConfig({}).aiRuns.inputHashKey).toBeDefined();
    expect(() => loadConfig({ AI_RUNTIME: 'http' })).toThrow(/AI_RUNTIME_URL/);
  });
});
