/**
 * The registry of waiting requests of the job change feed (src/db/job-changes.ts): waiters by
 * (channel, row id) with the process's bound, the set of open feeds and the
 * `job_long_poll_waiters` gauge over them.
 */
import { Gauge } from 'prom-client';
import { metricsRegistry } from '../../telemetry/metrics';
import type { ChangeSource, JobChangeFeed, Unsubscribe } from './contract';

/** One waiting request: row `id` of `source`, woken by `onChange` when its tag may have left `seenTag`. */
export interface Waiter {
  key: string;
  source: ChangeSource;
  id: string;
  seenTag: string;
  onChange: () => void;
}

/** The key of row `id` of channel `channel` (UUIDs compared in lower case, as PostgreSQL writes them). */
export const keyOf = (channel: string, id: string) => `${channel}\u0000${id.toLowerCase()}`;

/** The waiters of a process, by (channel, row id), with the global bound. */
export class Waiters {
  private readonly byKey = new Map<string, Set<Waiter>>();
  private count = 0;
  private closing = false;

  constructor(private readonly max: number) {}

  add(source: ChangeSource, id: string, seenTag: string, onChange: () => void): Unsubscribe | null {
    if (this.closing || this.count >= this.max) return null;
    const w: Waiter = { key: keyOf(source.channel, id), source, id: id.toLowerCase(), seenTag, onChange };
    let set = this.byKey.get(w.key);
    if (!set) this.byKey.set(w.key, (set = new Set()));
    set.add(w);
    this.count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const s = this.byKey.get(w.key);
      if (s?.delete(w)) this.count--;
      if (s && s.size === 0) this.byKey.delete(w.key);
    };
  }

  size(): number {
    return this.count;
  }

  /** Waited-on rows grouped by channel, with the source of each channel. */
  byChannel(): Map<string, { source: ChangeSource; ids: string[] }> {
    const out = new Map<string, { source: ChangeSource; ids: string[] }>();
    for (const set of this.byKey.values()) {
      const [w] = set;
      if (!w) continue;
      let group = out.get(w.source.channel);
      if (!group) out.set(w.source.channel, (group = { source: w.source, ids: [] }));
      group.ids.push(w.id);
    }
    return out;
  }

  of(key: string): Waiter[] {
    return [...(this.byKey.get(key) ?? [])];
  }

  wake(channel: string, id: string): void {
    for (const w of this.of(keyOf(channel, id))) w.onChange();
  }

  wakeChannel(channel: string): void {
    for (const set of [...this.byKey.values()]) for (const w of [...set]) if (w.source.channel === channel) w.onChange();
  }

  wakeAll(): void {
    for (const key of [...this.byKey.keys()]) for (const w of this.of(key)) w.onChange();
  }

  drain(): void {
    this.closing = true;
    this.wakeAll();
  }

  draining(): boolean {
    return this.closing;
  }
}

/** Every open feed of this process (added by the opener, removed by the feed's `close`). */
export const liveFeeds = new Set<JobChangeFeed>();

/** Waiters of every open feed of this process (the `job_long_poll_waiters` gauge). */
export function liveWaiters(): number {
  let n = 0;
  for (const f of liveFeeds) n += f.waiters();
  return n;
}

new Gauge({
  name: 'job_long_poll_waiters',
  help: 'Long polls of job and run resources waiting now (Prefer: wait), all feeds of this process',
  registers: [metricsRegistry],
  collect() {
    this.set(liveWaiters());
  },
});
