/**
 * SAN-4 start-after-commit, the one implementation: a resource (a job row, a run, a link job) is
 * committed first and its workflow started afterwards. A start that fails (Temporal down, process
 * killed) leaves the committed resource for the reconciler, which starts it by the same workflow ID,
 * so a crash between commit and start loses nothing and starts nothing twice.
 *
 * An API request that creates a resource and starts its workflow synchronously uses
 * {@link startOrUndo}: when Temporal is unavailable, the request's writes are undone and it answers
 * 503 WORKFLOW_START_UNAVAILABLE with Retry-After, so the client retries the same request (with the
 * same Idempotency-Key) instead of getting an answer for work nobody started; a start Temporal
 * neither took nor refused keeps the writes for the reconciler and answers 503
 * WORKFLOW_START_UNDECIDED. A retry route does the same, its undo restoring the retried row.
 */
import type { DomainError } from './domain-error';
import { CORE_ERRORS } from './errors';
import { startFailureKind, type StartOutcome } from './workflow-start';

/** Minimal logger of the caller (pino, fastify's request log, the activity log adapter). */
export interface WarnLog {
  warn(obj: object, msg: string): void;
}

/** Outcome of {@link startAfterCommit}: the start's, or `start-failed` (logged, left to the reconciler). */
export type AfterCommitOutcome = StartOutcome | 'start-failed';

/**
 * Runs `start` for a committed resource; never throws. A failure is logged at warn with `ids`
 * (the resource's id fields, e.g. `{ jobId }`; never a secret) and the error.
 */
export async function startAfterCommit(log: WarnLog, ids: Readonly<Record<string, unknown>>, start: () => Promise<StartOutcome>): Promise<AfterCommitOutcome> {
  try {
    return await start();
  } catch (err) {
    log.warn({ err, ...ids }, 'workflow start failed; the reconciler will start it');
    return 'start-failed';
  }
}

/**
 * Whether a failed workflow start means Temporal did not take it ({@link startFailureKind}
 * `unavailable`): gRPC UNAVAILABLE after the client's own retries of the same request (one request
 * ID: a retry that reached the server would have answered the run), or an ambiguous start whose
 * workflow ID shows no run of it.
 */
export function isTemporalUnavailable(err: unknown): boolean {
  return startFailureKind(err) === 'unavailable';
}

/** The 503 of a create whose workflow Temporal could not start (nothing of it is kept); Retry-After in seconds. */
export function workflowStartUnavailable(detail = 'Temporal is unavailable: nothing was created; retry the same request (with the same Idempotency-Key) after Retry-After', retryAfterSeconds = 5): DomainError {
  return CORE_ERRORS.problem('WORKFLOW_START_UNAVAILABLE', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });
}

/**
 * The 503 of a create or retry whose workflow start Temporal neither confirmed nor denied (a
 * deadline, and describing the workflow ID failed too): the resource is kept and settled by the
 * reconciler; Retry-After in seconds.
 */
export function workflowStartUndecided(detail = 'Temporal did not answer whether the workflow started: the request is kept and its start is settled in the background; retry the same request (with the same Idempotency-Key) after Retry-After', retryAfterSeconds = 5): DomainError {
  return CORE_ERRORS.problem('WORKFLOW_START_UNDECIDED', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });
}

/** Options of {@link startOrUndo}. */
export interface UndoOptions {
  /** The error thrown after an undo (given the start's error; default {@link workflowStartUnavailable}). */
  problem?(err: unknown): DomainError;
}

/** One workflow start of {@link startOrUndo}. */
export interface PendingStart {
  /** The resource's id fields for the log (never a secret). */
  ids: Readonly<Record<string, unknown>>;
  start(): Promise<StartOutcome>;
}

/**
 * Starts the workflows of what one API request has just committed, in order ({@link startAfterCommit}
 * for each). When the first start fails because Temporal is unavailable ({@link isTemporalUnavailable}),
 * no run exists yet: `undo` deletes what the request committed (its own transaction) and
 * {@link workflowStartUnavailable} is thrown; when its outcome is undecided (an ambiguous failure
 * that describing the workflow ID could not settle, see `startWorkflow`), everything is kept
 * for the reconciler and {@link workflowStartUndecided} is thrown; without `undo` (a replay: the resource is an earlier
 * request's) only the 503 is thrown. Should `undo` fail, the resource stays for the reconciler (and a
 * same-key replay) and the 503 is thrown all the same. A later start's failure, or one of another
 * kind, is logged and left to the reconciler, as in {@link startAfterCommit}. `opts.problem` names
 * the error thrown after an undo instead (e.g. for a retry, whose resource is restored).
 * @throws DomainError 503 WORKFLOW_START_UNAVAILABLE or WORKFLOW_START_UNDECIDED as above.
 */
export async function startOrUndo(log: WarnLog, starts: readonly PendingStart[], undo?: () => Promise<unknown>, opts: UndoOptions = {}): Promise<AfterCommitOutcome[]> {
  const outcomes: AfterCommitOutcome[] = [];
  for (const [i, s] of starts.entries()) {
    try {
      outcomes.push(await s.start());
    } catch (err) {
      const kind = startFailureKind(err);
      if (i === 0 && kind === 'ambiguous') {
        log.warn({ err, ...s.ids }, 'workflow start undecided: Temporal did not answer and its run could not be read; kept for the reconciler (503)');
        throw workflowStartUndecided();
      }
      if (i > 0 || kind !== 'unavailable') {
        log.warn({ err, ...s.ids }, 'workflow start failed; the reconciler will start it');
        outcomes.push('start-failed');
        continue;
      }
      try {
        await undo?.();
        log.warn({ err, ...s.ids }, `workflow start failed: Temporal is unavailable; ${undo ? 'the request was undone' : 'left as it was'} (503)`);
      } catch (undoErr) {
        log.warn({ err, undoErr, ...s.ids }, 'workflow start failed: Temporal is unavailable, and the undo failed too; the reconciler will start it (503)');
      }
      throw opts.problem?.(err) ?? workflowStartUnavailable();
    }
  }
  return outcomes;
}
