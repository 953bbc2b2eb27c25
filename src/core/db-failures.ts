/**
 * Database failures at the activity boundary (SAN-4, DC-3), for every worker: an activity interceptor
 * that (1) turns a deterministic database rejection (SQLSTATE class 22/23/42, Prisma input and
 * constraint codes, unencodable parameters) into the non-retryable PROJECTION_REJECTED, so a job that
 * can never finish FAILS with its cause instead of retrying, and (2) waits out a database outage
 * inside the attempt (probing with backoff, heartbeating) and then re-runs the activity, so an
 * outage is not charged to the job's attempt budget; only an outage longer than the attempt's own
 * timeout ends the attempt, as the retryable DEPENDENCY_UNAVAILABLE. Activities are idempotent
 * (Temporal may run them again anyway), which makes the re-run safe. Activity-only, not
 * workflow-safe. Classification: src/db/errors.ts.
 */
import { CancelledFailure, Context, log as activityLog } from '@temporalio/activity';
import { TemporalFailure } from '@temporalio/common';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker';
import { classifyDbError, type DbErrorInfo } from '../db/errors';
import { CORE_FAILURES } from './errors';
import { failure } from './failures';
import { storableText } from './cause-chain';

function label(info: DbErrorInfo): string {
  return [info.sqlState, info.prismaCode, info.kind].filter((p) => p !== undefined).join(' ');
}

/**
 * Maps a database error to the core's failure of its retry class: deterministic →
 * PROJECTION_REJECTED (non-retryable), unavailable → DEPENDENCY_UNAVAILABLE (retryable), any other
 * database error → DATABASE_ERROR (retryable, bounded by the activity's retry policy). The message
 * carries the server's reason (not Prisma's call-site dump); the details carry the codes, the
 * original error's name and its stack. A Temporal failure or a non-database error is returned
 * unchanged.
 */
export function toDbFailure(err: unknown): unknown {
  if (err instanceof TemporalFailure) return err;
  const info = classifyDbError(err);
  if (!info) return err;
  const details = [{
    kind: info.kind ?? 'transient',
    sqlState: info.sqlState ?? null,
    prismaCode: info.prismaCode ?? null,
    error: err instanceof Error ? err.name : typeof err,
    stack: err instanceof Error ? storableText(err.stack ?? '', 2000) : null,
  }];
  const reason = `[${label(info) || 'no code'}]: ${storableText(info.message, 1000)}`;
  if (info.class === 'deterministic') return failure(CORE_FAILURES, 'PROJECTION_REJECTED', `database rejected the write ${reason}`, { details });
  if (info.class === 'unavailable') return failure(CORE_FAILURES, 'DEPENDENCY_UNAVAILABLE', `database unavailable ${reason}`, { details });
  return failure(CORE_FAILURES, 'DATABASE_ERROR', `database error ${reason}`, { details });
}

/** Options of {@link dbFailureInterceptor}. */
export interface DbOutageOptions {
  /** Resolves when the database answers again (e.g. `SELECT 1`); rejects while it does not. */
  probe: () => Promise<unknown>;
  /** Stop waiting this long before the attempt's deadline, so the failure is reported in time (ms, default 3000). */
  marginMs?: number;
  /** First pause between probes (ms, default 500); doubles up to {@link DbOutageOptions.maxDelayMs}. */
  minDelayMs?: number;
  /** Longest pause between probes (ms, default 5000; at most half the heartbeat timeout). */
  maxDelayMs?: number;
}

/** When this attempt must have ended: its start-to-close and the activity's schedule-to-close bound. */
function attemptDeadline(info: Context['info'], startedAt: number): number {
  const bounds = [startedAt + info.startToCloseTimeoutMs];
  if (info.scheduleToCloseTimeoutMs > 0) bounds.push(info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs);
  const valid = bounds.filter((b) => Number.isFinite(b) && b > startedAt);
  return valid.length > 0 ? Math.min(...valid) : startedAt + 60_000; // no usable bound: wait at most a minute
}

/**
 * Waits until `probe` answers or `deadline` (epoch ms) is near, heartbeating. True when the
 * database is back. Rejects with CancelledFailure when the activity is cancelled meanwhile.
 */
async function waitForDatabase(ctx: Context, opts: DbOutageOptions, deadline: number): Promise<boolean> {
  const heartbeatMs = ctx.info.heartbeatTimeoutMs;
  const maxDelay = Math.min(opts.maxDelayMs ?? 5000, heartbeatMs ? Math.max(200, heartbeatMs / 2) : Infinity);
  let delay = Math.min(opts.minDelayMs ?? 500, maxDelay);
  while (Date.now() + delay < deadline) {
    // A local activity (the projection writes) has no heartbeat: the SDK keeps its workflow task alive.
    if (!ctx.info.isLocal) ctx.heartbeat();
    await ctx.sleep(delay);
    try {
      await opts.probe();
      return true;
    } catch (err) {
      if (classifyDbError(err)?.class !== 'unavailable') return true; // it answers; let the activity report what it says
    }
    delay = Math.min(delay * 2, maxDelay);
  }
  return false;
}

/** Activity interceptor of every worker (see the module comment); `createWorker` (./worker.ts) installs it. */
export function dbFailureInterceptor(opts: DbOutageOptions): ActivityInterceptorsFactory {
  return (ctx) => {
    const inbound: ActivityInboundCallsInterceptor = {
      async execute(input, next) {
        const deadline = attemptDeadline(ctx.info, Date.now()) - (opts.marginMs ?? 3000);
        let outageStart: number | undefined;
        let lastMessage = '';
        for (;;) {
          try {
            const value = await next(input);
            if (outageStart !== undefined) activityLog.info('database outage waited out', { waitedMs: Date.now() - outageStart, error: lastMessage });
            return value;
          } catch (err) {
            if (err instanceof CancelledFailure || err instanceof TemporalFailure) throw err;
            const info = classifyDbError(err);
            if (info?.class !== 'unavailable') throw toDbFailure(err);
            if (outageStart === undefined) activityLog.warn('database unavailable, waiting', { error: info.message });
            outageStart ??= Date.now();
            lastMessage = info.message;
            if (!(await waitForDatabase(ctx, opts, deadline))) {
              activityLog.warn('database still unavailable at the attempt deadline', { waitedMs: Date.now() - outageStart, error: info.message });
              throw toDbFailure(err);
            }
          }
        }
      },
    };
    return { inbound };
  };
}
