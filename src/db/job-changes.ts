/**
 * The change feed of the job and run projections, for the long polls of their GET routes
 * (src/api/long-poll.ts): tells waiting requests that a row may have changed, so they
 * re-read it and answer at once. Keyed by (channel, row id): each projection table has a
 * {@link ChangeSource} (its notification channel and a read of its rows' current entity tags),
 * declared by the code that owns the table and passed by its route; this module names no table.
 *
 * Two ways, chosen once at start-up and reported in the log (`JOB_CHANGE_FEED`):
 * - **listen** (a real PostgreSQL server): one dedicated connection per API process LISTENs on
 *   the channel of every source a request has waited on (LISTEN is issued on the first wait of a
 *   channel, and the waiters of that channel are woken once it is active). A table's trigger
 *   (migrations `20261201120000_async_jobs_status_notify`, `20261202160000_projection_change_notify`)
 *   sends `pg_notify(<channel>, <row id>)` when the row changes (delivered at commit, so the
 *   waiter's re-read sees the committed row). Notifications fan out to the waiters of that row.
 *   When the connection is lost (database restart, terminated backend, network) it reconnects with
 *   a backoff (100 ms doubling up to 5 s), listens on every channel again and wakes every waiter
 *   once, because notifications sent while it was away are lost.
 * - **poll** (the fallback): while anyone waits, every `pollMs` (default 250 ms) one read per
 *   waited-on source fetches the current entity tags of all waited-on rows and wakes the waiters
 *   whose tag differs from the one they hold. Used for the one-session embedded database: PGlite
 *   behind the wire front (src/db/pglite-wire.ts) is one Postgres session shared by all
 *   connections, so a notification is written to whichever connection's statement committed it,
 *   never to a listening connection; PGlite's own in-process `listen()` API is not reachable from
 *   a process that talks to it over TCP.
 * - **auto** (the default) probes: it listens on a fresh channel, sends one notification from the
 *   query pool (another connection) and waits up to `probeTimeoutMs` for it on the listening
 *   connection. Delivered → listen; not delivered (PGlite) or no connection → poll.
 *
 * Bounds: at most `maxWaiters` waiters per process over all sources (`subscribe` returns null
 * beyond), one LISTEN connection per process, one polling read per source and tick whatever the
 * number of waiters.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { Gauge } from 'prom-client';
import { metricsRegistry } from '../telemetry/metrics';
import type { Queryable } from './hot-reads';

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

interface Waiter {
  key: string;
  source: ChangeSource;
  id: string;
  seenTag: string;
  onChange: () => void;
}

/** The key of row `id` of channel `channel` (UUIDs compared in lower case, as PostgreSQL writes them). */
const keyOf = (channel: string, id: string) => `${channel}\u0000${id.toLowerCase()}`;

/** The waiters of a process, by (channel, row id), with the global bound. */
class Waiters {
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

const liveFeeds = new Set<JobChangeFeed>();

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

/** Poll mode: one batched version read per waited-on source and tick while anyone waits. */
function pollingFeed(opts: JobChangeFeedOptions, waiters: Waiters): JobChangeFeed {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const tick = async () => {
    timer = undefined;
    const groups = waiters.byChannel();
    if (groups.size === 0 || closed) return;
    await Promise.all(
      [...groups].map(async ([channel, { source, ids }]) => {
        try {
          const versions = await source.versions(ids);
          for (const id of ids) {
            const tag = versions.get(id);
            for (const w of waiters.of(keyOf(channel, id))) if (tag !== w.seenTag) w.onChange();
          }
        } catch (err) {
          opts.log.warn({ err, channel }, 'job change feed: polling the waited-on rows failed; trying again');
        }
      }),
    );
    schedule();
  };
  const schedule = () => {
    if (closed || timer || waiters.size() === 0) return;
    timer = setTimeout(() => void tick(), opts.pollMs);
    timer.unref();
  };
  const feed: JobChangeFeed = {
    mode: 'poll',
    subscribe(source, id, seenTag, onChange) {
      const off = waiters.add(source, id, seenTag, onChange);
      if (off) schedule();
      return off;
    },
    waiters: () => waiters.size(),
    reconnects: () => 0,
    connected: () => true,
    drain: () => waiters.drain(),
    draining: () => waiters.draining(),
    async close() {
      waiters.drain();
      closed = true;
      if (timer) clearTimeout(timer);
      liveFeeds.delete(feed);
    },
  };
  return feed;
}

/** Connects a client with the feed's application name (rejects when the database is unreachable). */
async function connectListener(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, application_name: JOB_CHANGES_APPLICATION_NAME, keepAlive: true });
  // An error before 'connect' resolves rejects connect(); later ones are handled by the caller.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Listen mode over `first` (already connected, not yet listening). */
async function listeningFeed(opts: JobChangeFeedOptions, waiters: Waiters, first: Client): Promise<JobChangeFeed> {
  let client: Client | undefined;
  let closed = false;
  let connections = 0;
  let retry: NodeJS.Timeout | undefined;
  let backoff = 100;
  /** Every channel a request has waited on: listened on by every connection. */
  const wanted = new Set<string>();
  /** Channels whose LISTEN is being sent on the current connection; the waiters of each are woken once it is active. */
  const pending = new Map<string, Promise<void>>();

  /** LISTENs on `channel` on the current connection (once), then wakes its waiters: a change before the LISTEN went unseen. */
  const listenOn = (channel: string) => {
    const c = client;
    if (!c || pending.has(channel)) return;
    const p = c.query(`LISTEN ${quoteIdent(channel)}`).then(
      () => {
        if (client === c) waiters.wakeChannel(channel);
      },
      () => {
        // The connection is failing: its loss handler reconnects and listens on every wanted channel.
        if (client === c) pending.delete(channel);
      },
    );
    pending.set(channel, p);
  };

  const attach = async (c: Client) => {
    c.removeAllListeners('error');
    c.on('notification', (n) => {
      if (n.payload) waiters.wake(n.channel, n.payload);
    });
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = undefined;
      c.removeAllListeners();
      c.on('error', () => undefined);
      void c.end().catch(() => undefined);
      if (closed) return;
      opts.log.warn({ err }, 'job change feed: LISTEN connection lost; reconnecting (waiters fall back to their timeout meanwhile)');
      reconnect();
    };
    c.on('error', lost);
    c.on('end', () => lost());
    for (const channel of wanted) await c.query(`LISTEN ${quoteIdent(channel)}`);
    pending.clear();
    for (const channel of wanted) pending.set(channel, Promise.resolve());
    client = c;
    connections++;
    backoff = 100;
  };

  const reconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void (async () => {
        let c: Client | undefined;
        try {
          c = await connectListener(opts.url);
          if (closed) return void (await c.end());
          await attach(c);
          opts.log.info({ reconnects: connections - 1 }, 'job change feed: LISTEN connection re-established');
          waiters.wakeAll(); // notifications sent while it was away are lost: every waiter re-reads
        } catch (err) {
          await c?.end().catch(() => undefined);
          backoff = Math.min(backoff * 2, 5_000);
          opts.log.debug({ err, retryInMs: backoff }, 'job change feed: reconnect failed');
          reconnect();
        }
      })();
    }, backoff);
    retry.unref();
  };

  await attach(first);
  const feed: JobChangeFeed = {
    mode: 'listen',
    subscribe(source, id, seenTag, onChange) {
      const off = waiters.add(source, id, seenTag, onChange);
      if (off) {
        wanted.add(source.channel);
        listenOn(source.channel);
      }
      return off;
    },
    waiters: () => waiters.size(),
    reconnects: () => Math.max(0, connections - 1),
    connected: () => client !== undefined,
    drain: () => waiters.drain(),
    draining: () => waiters.draining(),
    async close() {
      waiters.drain();
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
      liveFeeds.delete(feed);
    },
  };
  return feed;
}

/**
 * Whether a notification sent from the query pool reaches `listener` (a separate connection)
 * within `timeoutMs`: true on a real server, false on the one-session embedded database. Leaves
 * the listener listening on nothing.
 */
async function notificationsReachListener(listener: Client, db: Queryable, timeoutMs: number): Promise<boolean> {
  const channel = `change_feed_probe_${randomUUID().replace(/-/g, '')}`;
  const payload = randomUUID();
  let onNotification: ((n: { channel: string; payload?: string }) => void) | undefined;
  const delivered = new Promise<boolean>((resolve) => {
    onNotification = (n) => {
      if (n.channel === channel && n.payload === payload) resolve(true);
    };
    listener.on('notification', onNotification);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await listener.query(`LISTEN ${quoteIdent(channel)}`);
    await db.query({ text: 'SELECT pg_notify($1, $2)', values: [channel, payload] });
    return await Promise.race([delivered, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
    if (onNotification) listener.removeListener('notification', onNotification);
    // UNLISTEN *: on PGlite the session (shared by all connections) must not stay listening.
    await listener.query('UNLISTEN *').catch(() => undefined);
  }
}

/**
 * Opens the process's job change feed (see the module comment for the modes). `listen` rejects
 * when the LISTEN connection cannot be made; `auto` then falls back to `poll` and says why.
 */
export async function openJobChangeFeed(opts: JobChangeFeedOptions): Promise<JobChangeFeed> {
  const waiters = new Waiters(opts.maxWaiters);
  let feed: JobChangeFeed | undefined;
  let reason: string;
  if (opts.mode === 'poll') {
    reason = 'JOB_CHANGE_FEED=poll';
  } else {
    let listener: Client | undefined;
    try {
      listener = await connectListener(opts.url);
      if (opts.mode === 'listen' || (await notificationsReachListener(listener, opts.db, opts.probeTimeoutMs ?? 2_000))) {
        feed = await listeningFeed(opts, waiters, listener);
        reason = opts.mode === 'listen' ? 'JOB_CHANGE_FEED=listen' : 'a probe notification reached a second connection';
      } else {
        reason = 'a probe notification did not reach a second connection (one-session embedded database)';
        await listener.end().catch(() => undefined);
      }
    } catch (err) {
      await listener?.end().catch(() => undefined);
      if (opts.mode === 'listen') throw err;
      reason = `no LISTEN connection: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  feed ??= pollingFeed(opts, waiters);
  liveFeeds.add(feed);
  opts.log.info(
    { mode: feed.mode, reason, ...(feed.mode === 'poll' ? { pollMs: opts.pollMs } : {}), maxWaiters: opts.maxWaiters },
    feed.mode === 'listen' ? 'job change feed: LISTEN/NOTIFY' : `job change feed: polling every ${opts.pollMs} ms`,
  );
  return feed;
}
