/** AR-3/AR-4/DC-3: every transition of the ai_runs state machine, allowed and forbidden, per actor. */
import { AI_RUN_STATUSES, canRunTransition, isFinishedRun, runSourcesOf, type AiRunStatus } from '../../../src/domain/ar/run-state';

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
    expect(AI_RUN_STATUSES.filter(isFinishedRun)).toEqual(['SUCCEEDED', 'FAILED']);
    for (const to of AI_RUN_STATUSES) {
      expect(canRunTransition('SUCCEEDED', to, 'worker')).toBe(false);
      expect(canRunTransition('SUCCEEDED', to, 'manual-retry')).toBe(false);
    }
  });
});
