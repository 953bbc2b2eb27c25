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
import type { Client } from 'pg';
import type { JobChangeFeed, JobChangeFeedOptions } from './change-feed/contract';
import { connectListener, listeningFeed, notificationsReachListener } from './change-feed/listening-feed';
import { pollingFeed } from './change-feed/polling-feed';
import { liveFeeds, Waiters } from './change-feed/waiters';

export {
  JOB_CHANGES_APPLICATION_NAME,
  type ChangeSource,
  type JobChangeFeed,
  type JobChangeFeedMode,
  type JobChangeFeedOptions,
  type Unsubscribe,
} from './change-feed/contract';
export { liveWaiters } from './change-feed/waiters';

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
