/**
 * One webhook POST to a checked destination ({@link CheckedDestination}): connects to the checked
 * address (never resolving the host again), sends the host name as Host and TLS server name, cuts
 * the request at `timeoutMs` whatever the receiver does, and reads at most 64 KiB of the answer.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedDestination } from './webhook-destination';

/** What one POST gave: the HTTP status (null: no answer), the time taken (ms) and the error, if any. */
export interface PostOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  ok: boolean;
}

const MAX_ANSWER_BYTES = 64 * 1024;

/** POSTs `body` with `headers` to `dest`; never throws (a failure is in the outcome). */
export function postWebhook(dest: CheckedDestination, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
  const started = performance.now();
  const pinned: LookupFunction = (_host, opts, cb) => {
    if (opts.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: dest.address, family: dest.family }]);
    else cb(null, dest.address, dest.family);
  };
  const lib = dest.url.protocol === 'https:' ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const done = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const ok = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
      resolve({ statusCode, durationMs: Math.round(performance.now() - started), error: error ?? (ok ? null : `HTTP ${statusCode}`), ok });
    };
    const req = lib.request(
      dest.url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: { 'content-type': 'application/json', 'user-agent': 'durable-jobs-webhooks/1', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.on('end', () => done(res.statusCode ?? null, null));
        res.on('close', () => done(res.statusCode ?? null, null));
        res.on('error', () => done(res.statusCode ?? null, null));
      },
    );
    const timer = setTimeout(() => {
      done(null, `timed out after ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => done(null, err.message || String(err)));
    req.end(body);
  });
}
