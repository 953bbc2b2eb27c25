/** The core attempt ledger's pure parts (src/core/attempts.ts): the failure classifier's table and the backoff. */
import { ActivityFailure, ApplicationFailure, RetryState, ServerFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { backoffMs, classifyAttemptFailure, type AttemptFailure, type FailureVocabulary } from '../../../src/core/attempts';

/** A family whose codes are the failure's `details[0].code` or type; DOWN is an outage type; the message of type PREFIXED carries its type. */
const vocabulary: FailureVocabulary<string> = {
  subject: 'call',
  leaseExpired: 'LEASE_EXPIRED',
  deadline: 'CALL_TIMEOUT',
  unknown: 'UNKNOWN',
  outageTypes: ['DOWN'],
  application: (f) => ({ code: f.code ?? f.type, terminal: f.nonRetryable, ...(f.type === 'PREFIXED' ? { message: `${f.type}: ${f.message}` } : {}) }),
};

const activityFailure = (cause?: Error) => new ActivityFailure('Activity task failed', 'call', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);
const app = (type: string, extra: Partial<Parameters<typeof ApplicationFailure.create>[0]> = {}) => ApplicationFailure.create({ message: 'm', type, ...extra });

test.each<[string, unknown, AttemptFailure]>([
  ['a lost heartbeat', activityFailure(new TimeoutFailure('t', undefined, TimeoutType.HEARTBEAT)),
    { class: 'lease-expired', code: 'LEASE_EXPIRED', message: 'the worker running the call stopped heartbeating' }],
  ['the call\'s start-to-close timeout', activityFailure(new TimeoutFailure('t', undefined, TimeoutType.START_TO_CLOSE)),
    { class: 'deadline', code: 'CALL_TIMEOUT', message: `the call exceeded its deadline (${String(TimeoutType.START_TO_CLOSE)})` }],
  ['a schedule-to-close timeout', activityFailure(new TimeoutFailure('t', undefined, TimeoutType.SCHEDULE_TO_CLOSE)),
    { class: 'deadline', code: 'CALL_TIMEOUT', message: `the call exceeded its deadline (${String(TimeoutType.SCHEDULE_TO_CLOSE)})` }],
  ['a retryable failure', activityFailure(app('BUSY')), { class: 'retryable', code: 'BUSY', message: 'm', retryAfterMs: undefined }],
  ['a non-retryable failure', activityFailure(app('REJECTED', { nonRetryable: true })), { class: 'terminal', code: 'REJECTED', message: 'm', retryAfterMs: undefined }],
  ['the code in details[0]', activityFailure(app('BUSY', { details: [{ code: 'RATE_LIMITED' }] })), { class: 'retryable', code: 'RATE_LIMITED', message: 'm', retryAfterMs: undefined }],
  ['details[0].outage', activityFailure(app('BUSY', { details: [{ outage: true }] })), { class: 'outage', code: 'BUSY', message: 'm', retryAfterMs: undefined }],
  ['an outage type', activityFailure(app('DOWN')), { class: 'outage', code: 'DOWN', message: 'm', retryAfterMs: undefined }],
  ['terminal over outage', activityFailure(app('DOWN', { nonRetryable: true, details: [{ outage: true }] })), { class: 'terminal', code: 'DOWN', message: 'm', retryAfterMs: undefined }],
  ['Retry-After from details[0]', activityFailure(app('BUSY', { details: [{ retryAfterMs: 1500 }] })), { class: 'retryable', code: 'BUSY', message: 'm', retryAfterMs: 1500 }],
  ['Retry-After from nextRetryDelay', activityFailure(app('DOWN', { nextRetryDelay: 2500 })), { class: 'outage', code: 'DOWN', message: 'm', retryAfterMs: 2500 }],
  ['details[0] before nextRetryDelay', activityFailure(app('BUSY', { details: [{ retryAfterMs: 1500 }], nextRetryDelay: 2500 })), { class: 'retryable', code: 'BUSY', message: 'm', retryAfterMs: 1500 }],
  ["the family's message", activityFailure(app('PREFIXED')), { class: 'retryable', code: 'PREFIXED', message: 'PREFIXED: m', retryAfterMs: undefined }],
  ['an unwrapped ApplicationFailure (a local activity\'s last failure)', app('BUSY'), { class: 'retryable', code: 'BUSY', message: 'm', retryAfterMs: undefined }],
  ['another cause', activityFailure(new ServerFailure('the server failed', false)), { class: 'retryable', code: 'UNKNOWN', message: 'the server failed' }],
  ['no cause', activityFailure(), { class: 'retryable', code: 'UNKNOWN', message: 'Activity task failed' }],
  ['a plain error', new Error('boom'), { class: 'retryable', code: 'UNKNOWN', message: 'boom' }],
])('%s', (_name, err, expected) => {
  expect(classifyAttemptFailure(err, vocabulary)).toEqual(expected);
});

test('backoff: exponential from initialMs, capped at maxMs; a fixed wait; Retry-After exactly when honoured', () => {
  const exp = { initialMs: 1_000, maxMs: 10_000, honourRetryAfter: true };
  expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, exp))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  expect(backoffMs(2, exp, 120_000)).toBe(120_000);
  expect(backoffMs(2, exp, -5)).toBe(0);
  const fixed = { initialMs: 3_000, maxMs: 3_000, honourRetryAfter: false };
  expect([1, 2, 7].map((n) => backoffMs(n, fixed, 120_000))).toEqual([3_000, 3_000, 3_000]);
});
