/** Poll mode of the job change feed (src/db/job-changes.ts): the fallback for the one-session embedded database. */
import type { JobChangeFeed, JobChangeFeedOptions } from './contract';
import { keyOf, liveFeeds, type Waiters } from './waiters';

/** Poll mode: one batched version read per waited-on source and tick while anyone waits. */
export function pollingFeed(opts: JobChangeFeedOptions, waiters: Waiters): JobChangeFeed {
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
