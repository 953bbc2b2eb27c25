/**
 * The bench's follow of a status resource (scripts/bench/follow.ts) against a scripted resource
 * and fake clocks: which conditional headers each way sends, when it pauses, what it counts, when
 * it gives up; and (g)'s statistics over what was seen.
 */
import { followJob, wayStats, type FollowOptions, type PollHeaders, type StatusRead } from '../../../scripts/bench/follow';

/** A resource answering `answers` in turn (the last one again and again), recording the headers; clocks advance only by the sleeps. */
function scripted(answers: StatusRead[]) {
  const sent: PollHeaders[] = [];
  const sleeps: number[] = [];
  let clock = 0;
  const read = (h: PollHeaders) => {
    sent.push(h);
    return Promise.resolve(answers[Math.min(sent.length - 1, answers.length - 1)]!);
  };
  const options = (way: 'short' | 'long', timeoutMs = 10_000): FollowOptions => ({
    way,
    terminal: ['COMPLETED', 'FAILED'],
    what: 'job j',
    pollMs: 100,
    waitS: 30,
    timeoutMs,
    sleep: (ms) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
    now: () => clock,
    wallClock: () => 1_000_000 + clock,
  });
  return { read, sent, sleeps, options };
}

const pending = (etag: string): StatusRead => ({ notModified: false, status: 'PROCESSING', etag });
const done: StatusRead = { notModified: false, status: 'COMPLETED', etag: '"v3"' };
const notModified: StatusRead = { notModified: true };

describe('followJob', () => {
  it('long polling: the first GET plain, then If-None-Match with the last ETag and Prefer: wait, no pauses', async () => {
    const r = scripted([pending('"v1"'), notModified, pending('"v2"'), done]);
    const seen = await followJob(r.read, r.options('long'));
    expect(seen).toEqual({ status: 'COMPLETED', requests: 4, seenAt: 1_000_000 });
    expect(r.sent).toEqual([{}, { 'if-none-match': '"v1"', prefer: 'wait=30' }, { 'if-none-match': '"v1"', prefer: 'wait=30' }, { 'if-none-match': '"v2"', prefer: 'wait=30' }]);
    expect(r.sleeps).toEqual([]);
  });

  it('short polling: no conditional headers, a pause of pollMs between GETs', async () => {
    const r = scripted([pending('"v1"'), pending('"v1"'), { notModified: false, status: 'FAILED', etag: '"v2"' }]);
    const seen = await followJob(r.read, r.options('short'));
    expect(seen).toEqual({ status: 'FAILED', requests: 3, seenAt: 1_000_200 });
    expect(r.sent).toEqual([{}, {}, {}]);
    expect(r.sleeps).toEqual([100, 100]);
  });

  it('long polling without an ETag pauses like short polling', async () => {
    const r = scripted([{ notModified: false, status: 'PENDING', etag: undefined }, done]);
    await followJob(r.read, r.options('long'));
    expect(r.sent).toEqual([{}, {}]);
    expect(r.sleeps).toEqual([100]);
  });

  it('gives up after timeoutMs without a terminal status, naming the job', async () => {
    const r = scripted([pending('"v1"')]);
    await expect(followJob(r.read, r.options('short', 250))).rejects.toThrow('job j: not terminal after 250 ms');
    expect(r.sent).toHaveLength(4);
  });

  it('stops when check throws (a failed worker)', async () => {
    const r = scripted([pending('"v1"'), done]);
    const check = () => {
      throw new Error('worker died');
    };
    await expect(followJob(r.read, { ...r.options('long'), check })).rejects.toThrow('worker died');
  });
});

describe('wayStats', () => {
  it('counts requests per job and failures; delays only of jobs with a terminal write', () => {
    const seen = [
      { id: 'a', status: 'COMPLETED', requests: 2, seenAt: 1_050 },
      { id: 'b', status: 'FAILED', requests: 4, seenAt: 2_010 },
      { id: 'c', status: 'COMPLETED', requests: 3, seenAt: 3_000 },
    ];
    const st = wayStats(seen, new Map([['a', 1_000], ['b', 2_000]]), ['FAILED']);
    expect(st).toMatchObject({ jobs: 3, requests: 9, perJob: 3, failed: 1 });
    expect(st.delay).toEqual({ p50: 10, p95: 50, n: 2 });
  });

  it('no jobs: NaN per job, no delays', () => {
    const st = wayStats([], new Map(), ['FAILED']);
    expect(st.perJob).toBeNaN();
    expect(st.delay.n).toBe(0);
  });
});
