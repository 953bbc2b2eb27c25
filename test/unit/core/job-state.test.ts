/** SAN-1/SAN-6/DC-3: the async_jobs state machine and the retry guard. */
import { ASYNC_JOB_STATES, retryDecision } from '../../../src/core/job-state';
import { transitionGuard } from '../../../src/core/guarded-transition';

describe('SAN-1 projection state machine', () => {
  it('allows only PENDING → PROCESSING → COMPLETED | FAILED, PENDING → FAILED and the SAN-6 re-enqueue FAILED → PENDING', () => {
    const legal = ASYNC_JOB_STATES.edges().map((e) => `${e.from}->${e.to}`);
    expect(legal.sort()).toEqual(['FAILED->PENDING', 'PENDING->FAILED', 'PENDING->PROCESSING', 'PROCESSING->COMPLETED', 'PROCESSING->FAILED']);
    expect(ASYNC_JOB_STATES.edges().filter((e) => e.actor === 'retry').map((e) => `${e.from}->${e.to}`)).toEqual(['FAILED->PENDING']);
  });
  it('never leaves a terminal state', () => {
    expect(ASYNC_JOB_STATES.isTerminal('COMPLETED')).toBe(true);
    expect(ASYNC_JOB_STATES.isTerminal('FAILED')).toBe(true);
    expect(ASYNC_JOB_STATES.isTerminal('PROCESSING')).toBe(false);
    expect(ASYNC_JOB_STATES.canTransition('COMPLETED', 'PROCESSING')).toBe(false);
    expect(ASYNC_JOB_STATES.canTransition('COMPLETED', 'PENDING', 'retry')).toBe(false);
  });
  it('derives the guard of each target state', () => {
    expect(ASYNC_JOB_STATES.sourcesOf('PROCESSING')).toEqual(['PENDING']);
    expect(ASYNC_JOB_STATES.sourcesOf('COMPLETED')).toEqual(['PROCESSING']);
    expect(ASYNC_JOB_STATES.sourcesOf('FAILED').sort()).toEqual(['PENDING', 'PROCESSING']);
    expect(ASYNC_JOB_STATES.sourcesOf('PENDING', 'retry')).toEqual(['FAILED']);
  });
  it('only the retry enters PENDING: a worker write to it is refused', () => {
    expect(ASYNC_JOB_STATES.sourcesOf('PENDING')).toEqual([]);
    expect(() => transitionGuard(ASYNC_JOB_STATES, 'PENDING')).toThrow(/PENDING/);
  });
  it('the active states are the SAN-2 partial index\'s', () => {
    expect(ASYNC_JOB_STATES.active).toEqual(['PENDING', 'PROCESSING']);
  });
  it('SAN-6: only a FAILED job under the retry limit may be re-enqueued', () => {
    expect(retryDecision({ status: 'FAILED', retryCount: 0 }, 3)).toBe('retry');
    expect(retryDecision({ status: 'FAILED', retryCount: 2 }, 3)).toBe('retry');
    expect(retryDecision({ status: 'FAILED', retryCount: 3 }, 3)).toBe('limit-reached');
    expect(retryDecision({ status: 'COMPLETED', retryCount: 0 }, 3)).toBe('not-failed');
    expect(retryDecision({ status: 'PENDING', retryCount: 0 }, 3)).toBe('not-failed');
    expect(retryDecision({ status: 'PROCESSING', retryCount: 5 }, 3)).toBe('not-failed');
  });
});
