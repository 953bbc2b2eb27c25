/** SAN-10/DC-3: the til_github_commits state machine never re-opens a commit. */
import { JOB_STATUSES } from '../../../src/core/contracts';
import { TIL_GITHUB_COMMIT_STATES } from '../../../src/domain/scraps/commit-state';

test('PENDING → PROCESSING → COMPLETED | FAILED and PENDING → FAILED, by the worker only', () => {
  expect(TIL_GITHUB_COMMIT_STATES.edges().map((e) => `${e.actor}:${e.from}->${e.to}`)).toEqual([
    'worker:PENDING->PROCESSING',
    'worker:PENDING->FAILED',
    'worker:PROCESSING->COMPLETED',
    'worker:PROCESSING->FAILED',
  ]);
  expect(TIL_GITHUB_COMMIT_STATES.actors).toEqual(['worker']);
});

test('nothing leaves COMPLETED or FAILED', () => {
  for (const to of JOB_STATUSES) {
    expect(TIL_GITHUB_COMMIT_STATES.canTransition('COMPLETED', to)).toBe(false);
    expect(TIL_GITHUB_COMMIT_STATES.canTransition('FAILED', to)).toBe(false);
  }
  expect(TIL_GITHUB_COMMIT_STATES.sourcesOf('PENDING')).toEqual([]);
  expect(TIL_GITHUB_COMMIT_STATES.active).toEqual(['PENDING', 'PROCESSING']);
});
