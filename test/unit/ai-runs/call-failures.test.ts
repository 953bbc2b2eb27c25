/** AR-7 codes of a failed runtime call (RUNTIME_CALL_FAILURES in src/workflows/ai-runs/run.ts), read by the core attempt ledger. */
import { ActivityFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { classifyAttemptFailure } from '../../../src/core/attempts';
import { failure } from '../../../src/core/failures';
import { AR_FAILURES } from '../../../src/domain/ai-runs/errors';
import { RUNTIME_CALL_FAILURES } from '../../../src/workflows/ai-runs/run';

const callFailed = (cause: Error) => new ActivityFailure('Activity task failed', 'callAiRuntime', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);
const classify = (cause: Error) => classifyAttemptFailure(callFailed(cause), RUNTIME_CALL_FAILURES);

test('the runtime activity\'s failures: the code from details, outages and Retry-After, terminal when thrown non-retryable', () => {
  expect(classify(failure(AR_FAILURES, 'AI_RUNTIME_RETRYABLE', 'down', { details: [{ code: 'RUNTIME_UNAVAILABLE', outage: true, retryAfterMs: 5_000 }] })))
    .toEqual({ class: 'outage', code: 'RUNTIME_UNAVAILABLE', message: 'down', retryAfterMs: 5_000 });
  expect(classify(failure(AR_FAILURES, 'AI_RUNTIME_RETRYABLE', 'slow down', { details: [{ code: 'RUNTIME_RATE_LIMITED', retryAfterMs: 120_000 }] })))
    .toEqual({ class: 'retryable', code: 'RUNTIME_RATE_LIMITED', message: 'slow down', retryAfterMs: 120_000 });
  expect(classify(failure(AR_FAILURES, 'AI_RUNTIME_TERMINAL', 'bad contract', { details: [{ code: 'CONTRACT_MISMATCH' }] })))
    .toMatchObject({ class: 'terminal', code: 'CONTRACT_MISMATCH' });
  expect(classify(failure(AR_FAILURES, 'AI_RUNTIME_TERMINAL', 'refused'))).toMatchObject({ class: 'terminal', code: 'RUNTIME_REJECTED' });
  expect(classify(failure(AR_FAILURES, 'AI_RUNTIME_RETRYABLE', 'odd'))).toMatchObject({ class: 'retryable', code: 'RUNTIME_ERROR' });
});

test('timeouts: a lost heartbeat is LEASE_EXPIRED, the call\'s own timeout RUNTIME_TIMEOUT', () => {
  expect(classify(new TimeoutFailure('t', undefined, TimeoutType.HEARTBEAT))).toMatchObject({ class: 'lease-expired', code: 'LEASE_EXPIRED' });
  expect(classify(new TimeoutFailure('t', undefined, TimeoutType.START_TO_CLOSE))).toMatchObject({ class: 'deadline', code: 'RUNTIME_TIMEOUT' });
});
