/**
 * How the bench follows a job or run to its terminal status through its status resource (every
 * family's resource has one contract: ETag, `If-None-Match` → 304, `Prefer: wait`): short polling
 * (a GET every `pollMs`) or long polling (`If-None-Match` with the last ETag + `Prefer: wait`), and
 * the statistics of (g) over what a client saw. No I/O of its own: the read, the sleep and the
 * clocks are given.
 */
import { pcts, type Pcts } from './measure';

/** The conditional headers of one status read (none on the first read and on short polling). */
export interface PollHeaders {
  'if-none-match'?: string;
  prefer?: string;
}

/** One status read's answer: 200 with the resource's status and ETag, or 304 Not Modified. */
export type StatusRead = { notModified: true } | { notModified: false; status: string; etag: string | undefined };

/** Short polling (a GET every pollMs) or long polling (If-None-Match + Prefer: wait). */
export type PollWay = 'short' | 'long';

/** How {@link followJob} follows one job. */
export interface FollowOptions {
  way: PollWay;
  /** The statuses that end the follow (e.g. COMPLETED, FAILED). */
  terminal: readonly string[];
  /** Names the job in the timeout message. */
  what: string;
  /** Short polling's interval, and long polling's pause when an answer had no ETag, ms. */
  pollMs: number;
  /** `Prefer: wait=<waitS>` of the long polls, seconds. */
  waitS: number;
  /** The follow gives up (throws) once this much time has passed without a terminal status, ms. */
  timeoutMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Monotonic clock for the timeout, ms (performance.now). */
  now: () => number;
  /** Wall clock of the moment seen, ms since the epoch (Date.now: comparable with the projection's timestamps). */
  wallClock: () => number;
  /** Called after each non-terminal answer (e.g. to throw when a worker failed). */
  check?: () => void;
}

/** What a follow saw: the terminal status, the GET requests it took (the first one included), and when. */
export interface Followed {
  status: string;
  requests: number;
  /** Wall clock (ms since the epoch) when the terminal answer arrived. */
  seenAt: number;
}

/**
 * Reads the status resource through `read` until its status is terminal. Long polling sends the
 * ETag of the last 200 with `Prefer: wait` and does not pause between requests; short polling
 * sends no conditional headers and pauses `pollMs` between them.
 * @throws Error after `timeoutMs` without a terminal status; whatever `read` or `check` throws.
 */
export async function followJob(read: (headers: PollHeaders) => Promise<StatusRead>, o: FollowOptions): Promise<Followed> {
  const start = o.now();
  let requests = 0;
  let etag: string | undefined;
  for (;;) {
    requests++;
    const r = await read(o.way === 'long' && etag ? { 'if-none-match': etag, prefer: `wait=${o.waitS}` } : {});
    if (!r.notModified) {
      if (o.terminal.includes(r.status)) return { status: r.status, requests, seenAt: o.wallClock() };
      etag = r.etag;
    }
    o.check?.();
    if (o.now() - start > o.timeoutMs) throw new Error(`${o.what}: not terminal after ${o.timeoutMs} ms`);
    if (o.way === 'short' || !etag) await o.sleep(o.pollMs);
  }
}

/** One followed job of (g): its id and what its follow saw. */
export interface SeenJob extends Followed {
  id: string;
}

/** (g)'s figures of one way over its jobs. */
export interface WayStats {
  jobs: number;
  requests: number;
  /** requests / jobs (NaN without jobs). */
  perJob: number;
  /** Terminal write (the projection's timestamp) → seen by the client, ms, over the jobs that have the timestamp. */
  delay: Pcts;
  /** Jobs seen in one of the `failed` statuses. */
  failed: number;
}

/**
 * The statistics of `seen`: requests per job, and the delays `seenAt - finishedAt(id)` (ms) of
 * the jobs with a terminal write in `finishedAt` (ms since the epoch; others are left out).
 */
export function wayStats(seen: readonly SeenJob[], finishedAt: ReadonlyMap<string, number>, failed: readonly string[]): WayStats {
  const delays = seen.flatMap((s) => {
    const at = finishedAt.get(s.id);
    return at === undefined ? [] : [s.seenAt - at];
  });
  const requests = seen.reduce((n, s) => n + s.requests, 0);
  return {
    jobs: seen.length,
    requests,
    perJob: seen.length === 0 ? Number.NaN : requests / seen.length,
    delay: pcts(delays),
    failed: seen.filter((s) => failed.includes(s.status)).length,
  };
}
