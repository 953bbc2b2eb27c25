/**
 * The attempt ledger of a workflow that makes its own attempts: each attempt is begun in the
 * family's projection (DC-3), makes ONE call activity (scheduled with `maximumAttempts: 1`,
 * so every real attempt is counted by the projection, never by a transparent Temporal retry), and
 * ends recorded there. A failed call is classified once ({@link classifyAttemptFailure}) and
 * retried within an attempt budget; an outage is waited out and not charged; an optional overall
 * deadline races the attempts. The family supplies the hooks (what to call, how to record) and its
 * failure codes. Workflow code: deterministic, no I/O.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, TimeoutFailure, isCancellation, sleep } from '@temporalio/workflow';

/**
 * What a failed attempt means:
 * - `retryable`: transient; another attempt may succeed (charged to the budget);
 * - `terminal`: deterministic; the attempt is the last;
 * - `outage`: a dependency is down or rate limiting; waited out, not charged;
 * - `lease-expired`: the worker running the call stopped heartbeating (killed mid-call): the
 *   heartbeat timeout ended the attempt; retryable and charged;
 * - `deadline`: the call exceeded its own timeout (start-to-close); retryable and charged.
 */
export type AttemptFailureClass = 'retryable' | 'terminal' | 'outage' | 'lease-expired' | 'deadline';

/** One classified failure of an attempt's call, with the family's code `C`. */
export interface AttemptFailure<C extends string = string> {
  class: AttemptFailureClass;
  code: C;
  /** Stored with the failed attempt. */
  message: string;
  /** The wait the dependency asked for (Retry-After), ms. */
  retryAfterMs?: number | undefined;
}

/** What the ledger reads from the call's ApplicationFailure, for the family's {@link FailureVocabulary.application}. */
export interface ApplicationFailureFacts {
  /** The failure type ('' when none). */
  type: string;
  message: string;
  /** `details[0].code` when it is a string: a code the activity chose. */
  code?: string | undefined;
  /** The failure was thrown non-retryable (its catalogued retry class, src/core/failures.ts). */
  nonRetryable: boolean;
}

/** A family's failure codes: how the ledger names each kind of failure of its call. */
export interface FailureVocabulary<C extends string> {
  /** What the call is, in messages: "the worker running the <subject> stopped heartbeating". */
  subject: string;
  /** Code of a lost heartbeat (`lease-expired`). */
  leaseExpired: C;
  /** Code of the call's own timeout (`deadline`). */
  deadline: C;
  /** Code of a failure that is neither a timeout nor an ApplicationFailure (retryable). */
  unknown: C;
  /**
   * Failure types that are outages (besides any failure whose `details[0].outage` is true): waited
   * out, not charged, unless the family's {@link application} calls them terminal.
   */
  outageTypes?: readonly string[];
  /** The code of an ApplicationFailure, whether it is terminal, and its message (default: the failure's). */
  application(f: ApplicationFailureFacts): { code: C; terminal: boolean; message?: string };
}

/**
 * Classifies a failed call (the ActivityFailure a proxied activity threw, or its cause) in `v`'s
 * codes: a heartbeat timeout → `lease-expired`; another timeout → `deadline`; an ApplicationFailure
 * → `terminal` when the family says so, else `outage` when its details or type say so, else
 * `retryable`, with the requested wait from `details[0].retryAfterMs` or `nextRetryDelay`; anything
 * else → `retryable` with `v.unknown`.
 */
export function classifyAttemptFailure<C extends string>(err: unknown, v: FailureVocabulary<C>): AttemptFailure<C> {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) {
    if (cause.timeoutType === 'HEARTBEAT') {
      return { class: 'lease-expired', code: v.leaseExpired, message: `the worker running the ${v.subject} stopped heartbeating` };
    }
    return { class: 'deadline', code: v.deadline, message: `the ${v.subject} exceeded its deadline (${String(cause.timeoutType)})` };
  }
  if (cause instanceof ApplicationFailure) {
    const d = (cause.details?.[0] ?? {}) as { code?: unknown; outage?: unknown; retryAfterMs?: unknown };
    const type = cause.type ?? '';
    const read = v.application({
      type,
      message: cause.message,
      code: typeof d.code === 'string' ? d.code : undefined,
      nonRetryable: cause.nonRetryable === true,
    });
    const outage = d.outage === true || (v.outageTypes ?? []).includes(type);
    const delay = typeof d.retryAfterMs === 'number' ? d.retryAfterMs : cause.nextRetryDelay;
    return {
      class: read.terminal ? 'terminal' : outage ? 'outage' : 'retryable',
      code: read.code,
      message: read.message ?? cause.message,
      retryAfterMs: typeof delay === 'number' ? delay : undefined,
    };
  }
  const message = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
  return { class: 'retryable', code: v.unknown, message };
}

/** Exponential backoff: attempt `n` waits `initialMs · 2^(n-1)`, at most `maxMs`; a fixed wait has both equal. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** Wait exactly the dependency's Retry-After when it gave one (not capped). */
  honourRetryAfter: boolean;
}

/** The wait before retry `n` (1-based), ms, under `b`. */
export function backoffMs(n: number, b: Backoff, retryAfterMs?: number): number {
  if (b.honourRetryAfter && retryAfterMs !== undefined) return Math.max(0, retryAfterMs);
  return Math.min(b.maxMs, b.initialMs * 2 ** Math.max(0, n - 1));
}

/**
 * How an outage is waited out (never charged to the budget):
 * - `next-attempt`: recorded as a failed attempt like any retryable one (the family's `retrying`
 *   hook, the retry backoff) and the next attempt number begun; bounded by the deadline only;
 * - `same-attempt`: not recorded; after `backoff` the same attempt number is begun again, at most
 *   `maxWaits` times per loop, after which an outage is charged like a retryable failure.
 */
export type OutagePolicy =
  | { repeat: 'next-attempt' }
  | { repeat: 'same-attempt'; maxWaits: number; backoff: Backoff };

/** A failed attempt, as the ledger hands it to the family's hooks. */
export interface FailedAttempt<B, C extends string> {
  /** What the family's `begin` returned for this attempt. */
  begun: B;
  number: number;
  failure: AttemptFailure<C>;
  /** The call's failure (a cause for the family's own failure). */
  error: ActivityFailure;
  /** Workflow time from the call's start to its failure, ms. */
  latencyMs: number;
}

/** The hooks and policy of one {@link runAttempts} loop: `B` what a begun attempt carries, `R` the call's result, `E` the loop's end. */
export interface AttemptLedger<B, R, E, C extends string> {
  /** Number of the loop's first attempt (1-based). */
  first: number;
  vocabulary: FailureVocabulary<C>;
  /**
   * Begins attempt `number` in the projection (`retry`: not the loop's first begin). Returns the
   * begun attempt and the attempt budget, or the loop's end when the projection refuses.
   */
  begin(a: { number: number; retry: boolean }): Promise<{ begun: B; budget: number } | { end: E }>;
  /** The attempt's one call activity. */
  call(begun: B, number: number): Promise<R>;
  /** Records the call's result; the loop ends with it. */
  succeed(begun: B, result: R, number: number): Promise<E>;
  /** Records a failed attempt that another follows after `retryInMs`; returns an end to stop instead (the projection closed). */
  retrying(f: FailedAttempt<B, C> & { retryInMs: number }): Promise<E | undefined>;
  /** Records the last failed attempt: its failure is terminal or the budget is used up. The loop ends with it. */
  ended(f: FailedAttempt<B, C> & { last: 'terminal' | 'budget-used' }): Promise<E>;
  /** Wait before the next attempt after the n-th failure of the loop. */
  retryBackoff: Backoff;
  outages: OutagePolicy;
  /** The overall deadline (epoch ms): when it passes first, the attempts are cancelled and the loop ends with `expired()`. */
  deadline?: { at: number; expired(): Promise<E> } | undefined;
}

async function attemptLoop<B, R, E, C extends string>(l: AttemptLedger<B, R, E, C>): Promise<E> {
  let number = l.first;
  let retry = false;
  let charged = 0;
  let failures = 0;
  let outageWaits = 0;
  for (;;) {
    // Called in the loop's first step: the attempt's begin is scheduled before the deadline timer.
    const b = await l.begin({ number, retry });
    retry = true;
    if ('end' in b) return b.end;
    const t0 = Date.now();
    let result: R;
    try {
      result = await l.call(b.begun, number);
    } catch (err) {
      if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
      const f: FailedAttempt<B, C> = { begun: b.begun, number, failure: classifyAttemptFailure(err, l.vocabulary), error: err, latencyMs: Date.now() - t0 };
      failures += 1;
      if (f.failure.class === 'terminal') return l.ended({ ...f, last: 'terminal' });
      const outage = f.failure.class === 'outage' && (l.outages.repeat === 'next-attempt' || outageWaits < l.outages.maxWaits);
      if (outage && l.outages.repeat === 'same-attempt') {
        outageWaits += 1;
        await sleep(backoffMs(outageWaits, l.outages.backoff, f.failure.retryAfterMs));
        continue;
      }
      if (!outage) charged += 1;
      if (charged >= b.budget) return l.ended({ ...f, last: 'budget-used' });
      const retryInMs = backoffMs(failures, l.retryBackoff, f.failure.retryAfterMs);
      const stop = await l.retrying({ ...f, retryInMs });
      if (stop !== undefined) return stop;
      await sleep(retryInMs);
      number += 1;
      continue;
    }
    return l.succeed(b.begun, result, number);
  }
}

/** The deadline timer's value in the race (never a family's end value). */
const DEADLINE: unique symbol = Symbol('deadline');

/**
 * Runs attempts from `l.first` until one succeeds, fails terminally, uses up the budget, or the
 * projection refuses; with `l.deadline`, the attempts race a durable timer and a passed deadline
 * cancels them (the family's `expired()` records it). Cancellation of the workflow propagates;
 * a failure of a projection write (not the call) is thrown as it is.
 */
export async function runAttempts<B, R, E, C extends string>(l: AttemptLedger<B, R, E, C>): Promise<E> {
  const deadline = l.deadline;
  if (!deadline) return attemptLoop(l);
  const remaining = deadline.at - Date.now();
  if (remaining <= 0) return deadline.expired();
  const work = new CancellationScope();
  const timer = new CancellationScope();
  const attempts = work.run(() => attemptLoop(l));
  const expired = timer.run(() => sleep(remaining)).then((): typeof DEADLINE => DEADLINE);
  // Both settle later than the race in some paths; mark them handled (the race still sees them).
  attempts.catch(() => undefined);
  expired.catch(() => undefined);
  const winner = await Promise.race([attempts, expired]);
  if (winner !== DEADLINE) {
    timer.cancel();
    await expired.catch(() => undefined);
    return winner as E;
  }
  work.cancel();
  await attempts.catch(() => undefined);
  return deadline.expired();
}
