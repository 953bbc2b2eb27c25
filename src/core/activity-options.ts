/**
 * Retry and timeout presets for `proxyActivities`, one per kind of activity, and the heartbeat
 * helper of long activities (DC-2, SAN-4). The presets are plain data: workflow-safe.
 */
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/common';

/**
 * Projection writes on the `jobs` queue: idempotent, retried with backoff while the database is
 * unreachable; deterministic rejections are non-retryable failures (PROJECTION_REJECTED). Bounded
 * so a job can never retry forever: 60 attempts at ≤ 30 s apart ride out a ~25 min outage.
 */
export const PROJECTION_RETRY: RetryPolicy = { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 60 };

/**
 * Projection writes run as local activities first: the same idempotent writes, in
 * the workflow worker's process, no task-queue round trip and no input in the history. A few quick
 * attempts (0.5 s, 1 s, 2 s apart: below the SDK's local retry threshold, so they retry in-process);
 * a write that still fails retryably falls back to the same activity on the `jobs` queue with
 * {@link PROJECTION_RETRY} (where the stale-jobs recovery sees a stuck attempt). Non-retryable
 * rejections fail at once.
 */
export const LOCAL_PROJECTION_RETRY: RetryPolicy = { ...PROJECTION_RETRY, maximumAttempts: 4 };

/** Outside-service calls (AI, GitHub): at most 4 attempts; a dependency's Retry-After overrides the delay. */
export const PROVIDER_RETRY: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 4 };

/** Maintenance passes (reconciler, recovery): a few attempts, the next schedule tick tries again. */
export const MAINTENANCE_RETRY: RetryPolicy = { initialInterval: '5s', backoffCoefficient: 2, maximumAttempts: 3 };

/**
 * Heartbeat timeout of outside-service activities: a dead worker is detected within it, and an
 * attempt that is working (heartbeating every 2 s or less, src/core/heartbeat.ts) misses it only
 * when its worker's event loop stalls for most of it (a loaded machine stalls for seconds).
 */
export const PROVIDER_HEARTBEAT_TIMEOUT = '30s';

/** Options of projection activities on `taskQueue`. */
export function projectionOptions(taskQueue: string): ActivityOptions {
  return { taskQueue, startToCloseTimeout: '30s', retry: PROJECTION_RETRY };
}

/** Options of projection writes as local activities ({@link LOCAL_PROJECTION_RETRY}). */
export function localProjectionOptions(): LocalActivityOptions {
  return { startToCloseTimeout: '30s', retry: LOCAL_PROJECTION_RETRY };
}

/**
 * Options of outside-service activities on `taskQueue`: heartbeats detect a dead worker within
 * `heartbeatTimeout`; `startToCloseTimeout` bounds one attempt.
 */
export function providerOptions(taskQueue: string, startToCloseTimeout = '2m', heartbeatTimeout = PROVIDER_HEARTBEAT_TIMEOUT): ActivityOptions {
  return { taskQueue, startToCloseTimeout, heartbeatTimeout, retry: PROVIDER_RETRY };
}
