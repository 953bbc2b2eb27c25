/**
 * Listen mode of the job change feed (src/db/job-changes.ts) on a real PostgreSQL server: the
 * LISTEN connection with its reconnects, and the probe that tells whether notifications reach it.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Queryable } from '../hot-reads';
import { JOB_CHANGES_APPLICATION_NAME, type JobChangeFeed, type JobChangeFeedOptions } from './contract';
import { liveFeeds, type Waiters } from './waiters';

/** Connects a client with the feed's application name (rejects when the database is unreachable). */
export async function connectListener(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, application_name: JOB_CHANGES_APPLICATION_NAME, keepAlive: true });
  // An error before 'connect' resolves rejects connect(); later ones are handled by the caller.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Listen mode over `first` (already connected, not yet listening). */
export async function listeningFeed(opts: JobChangeFeedOptions, waiters: Waiters, first: Client): Promise<JobChangeFeed> {
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
export async function notificationsReachListener(listener: Client, db: Queryable, timeoutMs: number): Promise<boolean> {
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
