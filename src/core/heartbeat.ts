/**
 * Heartbeat helpers for long activities (DC-2): {@link withHeartbeat} heartbeats while a call runs,
 * hands it the activity's cancellation signal, and maps what it throws with the boundary's own
 * mapper (the adapter throws its error, the activity maps it to a Temporal failure);
 * {@link heartbeat} is one beat between the items of a pass. Activity-only (not workflow-safe).
 */
import { Context } from '@temporalio/activity';

/**
 * Beats per heartbeat timeout at least: an event loop held up by other work (a busy machine, CPU
 * work of another call) delays a beat by several intervals before the attempt times out.
 */
export const BEATS_PER_HEARTBEAT_TIMEOUT = 10;

/**
 * The heartbeat interval (ms) of an activity whose heartbeat timeout is `heartbeatTimeoutMs`
 * (0 or absent: none): `everyMs`, at most a {@link BEATS_PER_HEARTBEAT_TIMEOUT}th of the timeout.
 */
export function heartbeatIntervalMs(heartbeatTimeoutMs: number | undefined, everyMs: number): number {
  return heartbeatTimeoutMs ? Math.min(everyMs, Math.max(50, heartbeatTimeoutMs / BEATS_PER_HEARTBEAT_TIMEOUT)) : everyMs;
}

/**
 * Runs `fn(signal)` heartbeating every `everyMs` (default 2000 ms; shorter when the activity's
 * heartbeat timeout asks for it, {@link heartbeatIntervalMs}), the first beat one interval after
 * the start: the SDK sends an activity's first heartbeat to the server at once, and each one that
 * reaches it is a write of the run's state, which a short activity (most AI calls) need not pay.
 * The server's heartbeat timeout runs from the attempt's start, so a dead worker is still detected.
 * Errors pass through `mapError` (default: unchanged).
 */
export async function withHeartbeat<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  mapError: (err: unknown) => unknown = (e) => e,
  everyMs = 2000,
): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(), heartbeatIntervalMs(ctx.info.heartbeatTimeoutMs, everyMs));
  try {
    return await fn(ctx.cancellationSignal);
  } catch (err) {
    throw mapError(err);
  } finally {
    clearInterval(timer);
  }
}

/** One heartbeat of the current activity; a no-op outside one (a pass called from a test or a script). */
export function heartbeat(details?: unknown): void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return;
  }
  ctx.heartbeat(details);
}
