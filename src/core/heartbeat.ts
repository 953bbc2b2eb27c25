/**
 * Heartbeat helper for long activities (DC-2): heartbeats while `fn` runs, hands it the activity's
 * cancellation signal, and maps what it throws with the boundary's own mapper (the adapter throws
 * its error, the activity maps it to a Temporal failure). Activity-only (not workflow-safe).
 */
import { Context } from '@temporalio/activity';

/**
 * Runs `fn(signal)` heartbeating every `everyMs` (default 2000 ms), the first time `everyMs` after
 * the start, not at once (issue 7 §1): the SDK sends an activity's first heartbeat to the server
 * immediately, and every heartbeat that reaches the server is a write of the run's state, so a
 * heartbeat at the start cost each short activity (most AI calls) one server round trip and write
 * for nothing. The server's heartbeat timeout runs from the attempt's start either way, so a dead
 * worker is detected as before (`heartbeatTimeout` must exceed `everyMs`), and a cancellation
 * reaches the activity with its first heartbeat's answer, as before with its second.
 * Errors pass through `mapError` (default: unchanged).
 */
export async function withHeartbeat<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  mapError: (err: unknown) => unknown = (e) => e,
  everyMs = 2000,
): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(), everyMs);
  try {
    return await fn(ctx.cancellationSignal);
  } catch (err) {
    throw mapError(err);
  } finally {
    clearInterval(timer);
  }
}
