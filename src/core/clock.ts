/**
 * Instants that come from outside (a callback's body, a result document, a runtime's answer) are
 * checked against the server clock before anything is ordered by them. Pure, workflow-safe.
 */

/**
 * How far `at` lies ahead of the server clock `nowMs` beyond `toleranceSeconds` (the clock skew
 * allowed, e.g. the callback signature's tolerance), in ms; 0 when it does not.
 */
export function msBeyondClock(at: Date, nowMs: number, toleranceSeconds: number): number {
  return Math.max(0, at.getTime() - nowMs - toleranceSeconds * 1000);
}

/**
 * The latest instant from outside that is trusted at `nowMs` with `toleranceSeconds` of skew: a
 * stored instant after it cannot be a real time of the past (it came in before this check).
 */
export function trustedUntil(nowMs: number, toleranceSeconds: number): Date {
  return new Date(nowMs + toleranceSeconds * 1000);
}
