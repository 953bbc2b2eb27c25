/** The contract of the job change feed (src/db/job-changes.ts): sources, the feed, its options. */
import type { Logger } from 'pino';
import type { Queryable } from '../hot-reads';

/**
 * What the feed knows of one projection table: the channel its trigger notifies on (payload: the
 * row id) and a read of its rows' current entity tags (the poll mode's read; the tags are the ones
 * the resource's GET sends as `ETag`).
 */
export interface ChangeSource {
  /** The notification channel, e.g. `async_jobs` (a PostgreSQL identifier). */
  channel: string;
  /** Current entity tags of the rows `ids` (lower-case UUIDs); rows that do not exist are absent. */
  versions(ids: readonly string[]): Promise<Map<string, string>>;
}

/** `application_name` of the LISTEN connection (find it in pg_stat_activity). */
export const JOB_CHANGES_APPLICATION_NAME = 'durable-jobs job-change-feed';

/** How changes are seen. */
export type JobChangeFeedMode = 'listen' | 'poll';

/** Stops a subscription; safe to call twice. */
export type Unsubscribe = () => void;

/** The feed a long poll waits on. */
export interface JobChangeFeed {
  readonly mode: JobChangeFeedMode;
  /**
   * Calls `onChange` (possibly more than once, possibly spuriously) when row `id` of `source` may
   * have left the entity tag `seenTag`; the caller re-reads the row. Returns null when `maxWaiters`
   * subscriptions are active, or the feed is closing.
   */
  subscribe(source: ChangeSource, id: string, seenTag: string, onChange: () => void): Unsubscribe | null;
  /** Active subscriptions. */
  waiters(): number;
  /** Listen mode: connections made after the first (a measure of lost connections). */
  reconnects(): number;
  /** Listen mode: whether the LISTEN connection is up now (poll mode: always true). */
  connected(): boolean;
  /** Wakes every waiter and refuses new ones (call before the server drains its requests). */
  drain(): void;
  /** Whether {@link drain} was called: waiters answer at once. */
  draining(): boolean;
  /** {@link drain}, then closes the LISTEN connection or stops polling. */
  close(): Promise<void>;
}

/** Options of {@link openJobChangeFeed}. */
export interface JobChangeFeedOptions {
  /** `listen`, `poll`, or `auto` (probe LISTEN/NOTIFY, fall back to poll). */
  mode: 'auto' | JobChangeFeedMode;
  /** Database URL for the LISTEN connection. */
  url: string;
  /** The query pool: the probe's NOTIFY. */
  db: Queryable;
  /** Milliseconds between reads in poll mode. */
  pollMs: number;
  maxWaiters: number;
  log: Logger;
  /** How long `auto` waits for its probe notification (default 2 000 ms). */
  probeTimeoutMs?: number;
}
