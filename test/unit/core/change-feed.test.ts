/**
 * The poll mode of the change feed (src/db/job-changes.ts) over in-memory sources: waiters are
 * keyed by (channel, row id), so a change of one table wakes only the waiters of that row of that
 * table; one read per waited-on source and tick; a row that disappears wakes its waiters; ids are
 * compared in lower case; the waiter bound holds over every source; drain wakes everyone.
 */
import pino from 'pino';
import { openJobChangeFeed, type ChangeSource, type JobChangeFeed } from '../../../src/db/job-changes';
import { pollUntil } from '../../support/poll';

const ID = '0a000000-0000-4000-8000-00000000000a';
const OTHER = '0b000000-0000-4000-8000-00000000000b';

/** A table in memory: row id → ETag, and the ids each version read asked for. */
function table(channel: string) {
  const rows = new Map<string, string>();
  const reads: string[][] = [];
  const source: ChangeSource = {
    channel,
    async versions(ids) {
      reads.push([...ids]);
      return new Map(ids.flatMap((id) => (rows.has(id) ? [[id, rows.get(id)!] as const] : [])));
    },
  };
  return { rows, reads, source };
}

let feed: JobChangeFeed;
const open = (maxWaiters = 10) =>
  openJobChangeFeed({ mode: 'poll', url: 'postgresql://unused', db: { query: () => Promise.reject(new Error('unused')) }, pollMs: 20, maxWaiters, log: pino({ level: 'silent' }) });
afterEach(async () => feed?.close());

it('a change of one table wakes only the waiters of that row of that table, with one read per table and tick', async () => {
  feed = await open();
  const jobs = table('async_jobs');
  const runs = table('ai_runs');
  jobs.rows.set(ID, '"a"').set(OTHER, '"b"');
  runs.rows.set(ID, '"r1"');
  const woken: string[] = [];
  const offs = [
    feed.subscribe(jobs.source, ID, '"a"', () => woken.push('jobs/ID')),
    feed.subscribe(jobs.source, OTHER, '"b"', () => woken.push('jobs/OTHER')),
    feed.subscribe(runs.source, ID.toUpperCase(), '"r1"', () => woken.push('runs/ID')),
  ];
  expect(feed.waiters()).toBe(3);
  await pollUntil(() => runs.reads.length, (n) => n >= 2, { describe: 'two ticks' });
  expect(woken).toEqual([]);
  expect(runs.reads.every((ids) => ids.length === 1 && ids[0] === ID)).toBe(true); // lower case, one row
  expect(jobs.reads.every((ids) => [...ids].sort().join() === [ID, OTHER].sort().join())).toBe(true);

  runs.rows.set(ID, '"r2"');
  await pollUntil(() => woken, (w) => w.includes('runs/ID'), { describe: 'the run waiter to be woken' });
  expect(woken.filter((w) => w !== 'runs/ID')).toEqual([]);

  jobs.rows.delete(OTHER);
  await pollUntil(() => woken, (w) => w.includes('jobs/OTHER'), { describe: 'the waiter of a vanished row to be woken' });
  expect(woken).not.toContain('jobs/ID');
  for (const off of offs) off?.();
  expect(feed.waiters()).toBe(0);
});

it('the waiter bound holds over every source, unsubscribing frees a place, and drain wakes everyone and refuses more', async () => {
  feed = await open(2);
  const jobs = table('async_jobs');
  const runs = table('ai_runs');
  jobs.rows.set(ID, '"a"');
  runs.rows.set(ID, '"r"');
  let woken = 0;
  const first = feed.subscribe(jobs.source, ID, '"a"', () => woken++);
  const second = feed.subscribe(runs.source, ID, '"r"', () => woken++);
  expect(first && second).toBeTruthy();
  expect(feed.subscribe(runs.source, OTHER, '"x"', () => undefined)).toBeNull();
  second!();
  second!(); // twice is harmless
  const third = feed.subscribe(runs.source, ID, '"r"', () => woken++);
  expect(third).not.toBeNull();
  feed.drain();
  expect(woken).toBe(2);
  expect(feed.draining()).toBe(true);
  expect(feed.subscribe(jobs.source, OTHER, '"x"', () => undefined)).toBeNull();
});
