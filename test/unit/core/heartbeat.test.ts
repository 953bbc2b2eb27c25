import { BEATS_PER_HEARTBEAT_TIMEOUT, heartbeatIntervalMs } from '../../../src/core/heartbeat';
import { PROVIDER_HEARTBEAT_TIMEOUT } from '../../../src/core/activity-options';
import { msToNumber } from '@temporalio/common/lib/time';

test('the heartbeat interval leaves room for many missed beats before the heartbeat timeout', () => {
  expect(heartbeatIntervalMs(msToNumber(PROVIDER_HEARTBEAT_TIMEOUT), 2000)).toBe(2000);
  expect(msToNumber(PROVIDER_HEARTBEAT_TIMEOUT) / heartbeatIntervalMs(msToNumber(PROVIDER_HEARTBEAT_TIMEOUT), 2000)).toBeGreaterThanOrEqual(BEATS_PER_HEARTBEAT_TIMEOUT);
  // A short timeout (a test's, a family's setting) shortens the interval instead.
  expect(heartbeatIntervalMs(3000, 2000)).toBe(300);
  expect(heartbeatIntervalMs(10_000, 1000)).toBe(1000);
  expect(heartbeatIntervalMs(100, 2000)).toBe(50);
  // No heartbeat timeout: the caller's interval.
  expect(heartbeatIntervalMs(undefined, 2000)).toBe(2000);
  expect(heartbeatIntervalMs(0, 2000)).toBe(2000);
});
