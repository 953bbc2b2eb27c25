/**
 * The activity interceptor of src/core/db-failures.ts in a mock activity context: outages waited
 * out inside the attempt (heartbeating, then the activity runs again), an outage past the attempt's
 * deadline reported as the retryable DEPENDENCY_UNAVAILABLE, deterministic rejections as the
 * non-retryable PROJECTION_REJECTED, cancellation honoured while waiting. The error objects have the
 * shapes `net` and `pg` raise (their classification against a real server: db-errors.test.ts).
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { dbFailureInterceptor, type DbOutageOptions } from '../../../src/core/db-failures';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const nul = () => Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021', severity: 'ERROR' });

/** Runs `activity` through the interceptor in a mock activity with `startToCloseTimeoutMs`. */
async function intercepted(
  activity: () => Promise<unknown>,
  opts: DbOutageOptions,
  startToCloseTimeoutMs: number,
  onEnv: (env: MockActivityEnvironment) => void = () => undefined,
): Promise<{ value?: unknown; error?: unknown; heartbeats: number }> {
  const env = new MockActivityEnvironment(
    { startToCloseTimeoutMs, scheduleToCloseTimeoutMs: 0, heartbeatTimeoutMs: 1000 },
    { interceptors: [dbFailureInterceptor(opts)], logger: new DefaultLogger('ERROR') },
  );
  let heartbeats = 0;
  env.on('heartbeat', () => (heartbeats += 1));
  onEnv(env);
  try {
    const value = await env.run(activity);
    return { value, heartbeats };
  } catch (error) {
    return { error, heartbeats };
  }
}

it('waits out an outage inside the attempt and runs the activity again', async () => {
  let calls = 0;
  let probes = 0;
  const activity = async () => {
    calls += 1;
    if (calls <= 2) throw refused();
    return 'stored';
  };
  const probe = async () => {
    probes += 1;
    if (probes % 2 === 1) throw refused(); // every outage needs two probes
  };
  const r = await intercepted(activity, { probe, minDelayMs: 5, maxDelayMs: 20, marginMs: 0 }, 60_000);
  expect(r.value).toBe('stored');
  expect(calls).toBe(3);
  expect(probes).toBe(4);
  expect(r.heartbeats).toBeGreaterThanOrEqual(4);
});

it('an outage longer than the attempt ends it as the retryable DEPENDENCY_UNAVAILABLE', async () => {
  let calls = 0;
  const r = await intercepted(async () => {
    calls += 1;
    throw refused();
  }, { probe: async () => Promise.reject(refused()), minDelayMs: 10, maxDelayMs: 10, marginMs: 0 }, 200);
  expect(r.error).toBeInstanceOf(ApplicationFailure);
  expect(r.error).toMatchObject({ type: 'DEPENDENCY_UNAVAILABLE', nonRetryable: false });
  expect((r.error as Error).message).toContain('ECONNREFUSED');
  expect(calls).toBe(1);
});

it('a deterministic rejection is PROJECTION_REJECTED at once, with its SQLSTATE', async () => {
  let calls = 0;
  const r = await intercepted(async () => {
    calls += 1;
    throw nul();
  }, { probe: async () => undefined }, 60_000);
  expect(r.error).toMatchObject({ type: 'PROJECTION_REJECTED', nonRetryable: true });
  expect((r.error as Error).message).toBe('database rejected the write [22021 data-exception]: invalid byte sequence for encoding "UTF8": 0x00');
  expect(calls).toBe(1);
});

it('errors that are not the database pass through unchanged', async () => {
  const own = ApplicationFailure.nonRetryable('scrap gone', 'SCRAP_NOT_FOUND');
  expect((await intercepted(async () => Promise.reject(own), { probe: async () => undefined }, 60_000)).error).toBe(own);
  const plain = new Error('boom');
  expect((await intercepted(async () => Promise.reject(plain), { probe: async () => undefined }, 60_000)).error).toBe(plain);
});

it('a cancellation while waiting ends the wait with CancelledFailure', async () => {
  const r = await intercepted(
    async () => Promise.reject(refused()),
    { probe: async () => Promise.reject(refused()), minDelayMs: 20, maxDelayMs: 20, marginMs: 0 },
    60_000,
    (env) => env.on('heartbeat', () => env.cancel()),
  );
  expect(r.error).toBeInstanceOf(CancelledFailure);
});
