import { pollUntil, PollTimeoutError } from '../../support/poll';

it('returns the first value that satisfies the predicate, after sleeping between misses', async () => {
  let calls = 0;
  const sleptBetween: number[] = [];
  let last = Date.now();
  const value = await pollUntil(
    () => {
      const now = Date.now();
      if (calls > 0) sleptBetween.push(now - last);
      last = now;
      calls += 1;
      return calls;
    },
    (n) => n === 4,
    { describe: 'the fourth call', intervalMs: 20 },
  );
  expect(value).toBe(4);
  expect(calls).toBe(4);
  // Three sleeps, none skipped (timers may fire a millisecond early, never much earlier).
  expect(sleptBetween).toHaveLength(3);
  for (const ms of sleptBetween) expect(ms).toBeGreaterThanOrEqual(15);
});

it('on timeout throws PollTimeoutError naming what it waited for, with the last value', async () => {
  let calls = 0;
  const err = await pollUntil(
    () => ({ status: 'PENDING', call: ++calls }),
    (v) => v.status === 'COMPLETED',
    { describe: 'job j1 to finish', timeoutMs: 200, intervalMs: 10 },
  ).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PollTimeoutError);
  const timeout = err as PollTimeoutError;
  expect(timeout.message).toMatch(/^timed out after 200 ms \(\d+ attempts\) waiting for job j1 to finish; last value: \{ status: 'PENDING', call: \d+ \}$/);
  expect(timeout.lastValue).toEqual({ status: 'PENDING', call: calls });
  expect(timeout.attempts).toBe(calls);
  // It slept between attempts: a tight loop would make thousands of calls in 200 ms.
  expect(calls).toBeGreaterThan(1);
  expect(calls).toBeLessThanOrEqual(21);
});

it('a probe that throws fails at once, without retrying', async () => {
  const probe = jest.fn(async () => {
    throw new Error('database gone');
  });
  await expect(pollUntil(probe, () => true, { describe: 'never', timeoutMs: 5_000 })).rejects.toThrow('database gone');
  expect(probe).toHaveBeenCalledTimes(1);
});

it('narrows the value type with a type-guard predicate', async () => {
  const values = [undefined, undefined, 'wf-1'];
  const id: string = await pollUntil(() => values.shift(), (v): v is string => v !== undefined, { describe: 'an id', intervalMs: 1 });
  expect(id).toBe('wf-1');
});
