/**
 * Heartbeat helper for long activities (DC-2): heartbeats while `fn` runs, hands it the activity's
 * cancellation signal, and maps what it throws with the boundary's own mapper (the adapter throws
 * its error, the activity maps it to a Temporal failure). Activity-only (not workflow-safe).
 */
import { Context } from '@temporalio/activity';

/**
 * Runs `fn(signal)` heartbeating every `everyMs` (default 2000 ms), once at the start too.
 * Errors pass through `mapError` (default: unchanged).
 */
export async function withHeartbeat<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  mapError: (err: unknown) => unknown = (e) => e,
  everyMs = 2000,
): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), everyMs);
  try {
    return await fn(ctx.cancellationSignal);
  } catch (err) {
    throw mapError(err);
  } finally {
    clearInterval(timer);
  }
}
