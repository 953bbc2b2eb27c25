/**
 * The one start primitive (DC-1, DC-4): starts a workflow under its business workflow ID with the
 * workflow-ID reuse policy the caller names, counts the attempt in `jobs_started_total`, and
 * describes a workflow ID's latest run. Every starter (async_jobs and the families') builds its
 * workflow input and calls {@link startWorkflow}.
 */
import { isGrpcServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { InternalWorkflowStartOptionsSymbol, type InternalWorkflowStartOptions } from '@temporalio/client/lib/internal';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type TypedSearchAttributes } from '@temporalio/common';
import { jobMetrics } from './metrics';
import { priorityOf, type WorkClass } from './priority';

/** Outcome of a start: `started` (a new run) or `already-running` (the ID has a run it may not repeat). */
export type StartOutcome = 'started' | 'already-running';

/**
 * What a workflow ID may do after its run closed: `allow-duplicate` runs again (an async_jobs job
 * re-run after FAILED), `reject-duplicate` never has a second run (one run per ID, ever).
 */
export type WorkflowIdReuse = 'allow-duplicate' | 'reject-duplicate';

const REUSE_POLICIES: Record<WorkflowIdReuse, WorkflowIdReusePolicy> = {
  'allow-duplicate': WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  'reject-duplicate': WorkflowIdReusePolicy.REJECT_DUPLICATE,
};

/** A closed run without a run key, as {@link WorkflowStart.isKeyRun} sees it. */
export interface UnkeyedRun {
  memo: Record<string, unknown> | undefined;
  closeTime: Date | undefined;
}

/** One start of {@link startWorkflow}. */
export interface WorkflowStart {
  /** Exported workflow function name (the workflow type). */
  workflowType: string;
  /** The business workflow ID (from the contract's builder). */
  workflowId: string;
  taskQueue: string;
  /** The workflow's arguments (its input). */
  args: unknown[];
  reuse: WorkflowIdReuse;
  /** DC-4 search attributes (JobType, TargetId, UserId …). */
  searchAttributes: TypedSearchAttributes;
  /** Memo of the run (e.g. `{ jobId }`: recovery matches a run with its row by it). */
  memo?: Record<string, unknown>;
  /**
   * With `allow-duplicate`: the one run this start asks for (e.g. a job and its retry count). All
   * starts with one run key make at most one run, open or closed, however they race; a start with
   * a new key runs again under the same workflow ID. Stored in the memo as {@link RUN_KEY_MEMO}.
   */
  runKey?: string;
  /**
   * With `runKey`: whether a closed latest run that has no run key in its memo (one started
   * without a key) is the key's run all the same (absent: never).
   */
  isKeyRun?: (run: UnkeyedRun) => boolean;
  /** `job_type` label of `jobs_started_total`: the job type, or the kind of a workflow that runs no async_jobs row. */
  jobType: string;
  /**
   * Ask for eager workflow start: the server hands the run's first workflow task straight back to
   * a worker of `taskQueue` sharing the client's NativeConnection; without one (or when the server
   * declines) it is an ordinary start.
   */
  eager?: boolean;
  /** Who asked for the run: its task-queue priority key ({@link priorityOf}); absent: `interactive`. */
  workClass?: WorkClass;
}

/** Memo field of a run's {@link WorkflowStart.runKey}. */
export const RUN_KEY_MEMO = 'runKey';

/**
 * Starts `start.workflowType` under `start.workflowId` with conflict policy FAIL (a running ID is
 * never started twice) and the reuse policy of `start.reuse`; with a `runKey`, a closed ID runs
 * again only for a new key ({@link startOncePerKey}). Counted in `jobs_started_total` by job type
 * and outcome (started, already-running, failed).
 * @returns `already-running` when the ID has an open run, or (`reject-duplicate`) had one, or
 * (`runKey`) had the key's run.
 * An {@link startFailureKind ambiguous} failure is settled by describing the ID: its run there →
 * `started`; no run of it → {@link WorkflowNotStartedError}; describe failing too →
 * {@link WorkflowStartUndecidedError}.
 * @throws what `client.workflow.start` throws otherwise (e.g. Temporal unreachable), or the two errors above.
 */
export async function startWorkflow(client: Client, start: WorkflowStart): Promise<StartOutcome> {
  let started: boolean;
  try {
    started = start.runKey !== undefined && start.reuse === 'allow-duplicate'
      ? await startOncePerKey(client, start, start.runKey)
      : await tryStart(client, start, REUSE_POLICIES[start.reuse]);
  } catch (err) {
    const decided = startFailureKind(err) === 'ambiguous' ? await startTaken(client, start).catch(() => 'undecided' as const) : undefined;
    if (decided === true) {
      jobMetrics.started(start.jobType, 'started');
      return 'started';
    }
    jobMetrics.started(start.jobType, 'failed');
    if (decided === false) throw new WorkflowNotStartedError(start.workflowId, err);
    if (decided === 'undecided') throw new WorkflowStartUndecidedError(start.workflowId, err);
    throw err;
  }
  const outcome: StartOutcome = started ? 'started' : 'already-running';
  jobMetrics.started(start.jobType, outcome);
  return outcome;
}

/**
 * One start request; false when the server refuses it for the workflow ID's runs. `requestId`
 * (default: a random one) is the server's deduplication key: a request with the request ID of the
 * ID's latest run, open or closed, returns that run and starts nothing.
 */
async function tryStart(client: Client, start: WorkflowStart, reuse: WorkflowIdReusePolicy, requestId?: string): Promise<boolean> {
  const memo = start.runKey === undefined ? start.memo : { ...start.memo, [RUN_KEY_MEMO]: start.runKey };
  // The SDK has no public option for the request ID; its own Nexus helpers pass it this way.
  const options: WorkflowStartOptions & InternalWorkflowStartOptions = {
    workflowId: start.workflowId,
    taskQueue: start.taskQueue,
    args: start.args,
    workflowIdReusePolicy: reuse,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    typedSearchAttributes: start.searchAttributes,
    priority: priorityOf(start.workClass ?? 'interactive'),
    ...(memo ? { memo } : {}),
    ...(start.eager ? { requestEagerStart: true } : {}),
    ...(requestId ? { [InternalWorkflowStartOptionsSymbol]: { requestId } } : {}),
  };
  try {
    await client.workflow.start(start.workflowType, options);
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/**
 * `allow-duplicate` keyed by `runKey`: an ID that never ran starts at once (one request); else its
 * latest run decides: open, or the key's own run → nothing started; another key's closed run →
 * a start whose request ID is the key, so that of two starters racing past this check (a late
 * after-commit start, the reconciler) the server keeps one run even when it has already closed.
 * The server does not tell its answer to such a repeat from a start, so the loser of that race
 * also reports `started` (the run is the winner's).
 */
async function startOncePerKey(client: Client, start: WorkflowStart, runKey: string): Promise<boolean> {
  if (await tryStart(client, start, WorkflowIdReusePolicy.REJECT_DUPLICATE)) return true;
  try {
    const latest = await client.workflow.getHandle(start.workflowId).describe();
    if (latest.status.name === 'RUNNING') return false;
    const key = latest.memo?.[RUN_KEY_MEMO];
    if (key === runKey || (key === undefined && start.isKeyRun?.({ memo: latest.memo, closeTime: latest.closeTime }))) return false;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err; // its runs were deleted (retention) meanwhile
  }
  return tryStart(client, start, WorkflowIdReusePolicy.ALLOW_DUPLICATE, runKey);
}

/**
 * Whether the latest run of `start.workflowId` is the one `start` asked for: with a run key, the run
 * whose memo holds it; else a run whose memo has `start.memo`'s entries (any run without a memo).
 * @returns false when the ID has no run or another one.
 * @throws what describe throws but WorkflowNotFoundError (Temporal unreachable, a deadline).
 */
async function startTaken(client: Client, start: WorkflowStart): Promise<boolean> {
  let memo: Record<string, unknown> | undefined;
  try {
    memo = (await client.workflow.getHandle(start.workflowId).describe()).memo;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
  if (start.runKey !== undefined) return memo?.[RUN_KEY_MEMO] === start.runKey;
  return Object.entries(start.memo ?? {}).every(([k, v]) => JSON.stringify(memo?.[k]) === JSON.stringify(v));
}

/**
 * Kind of a failed workflow start (DC-1, SAN-4), the one classification of start errors:
 * - `unavailable`: Temporal did not take it (gRPC UNAVAILABLE after the client's own retries of the
 *   one request ID, RESOURCE_EXHAUSTED, or an ambiguous start its workflow ID shows did not run:
 *   {@link WorkflowNotStartedError}); nothing runs.
 * - `ambiguous`: the request may have reached the server and started the run (DEADLINE_EXCEEDED,
 *   CANCELLED, UNKNOWN, INTERNAL, a connection reset or dropped mid-call), or
 *   {@link WorkflowStartUndecidedError} (describing the ID failed as well).
 * - `already-started`: the ID has a run the start may not repeat.
 * - `rejected`: the server (or the client before sending) refused it for another reason; nothing runs.
 */
export type StartFailureKind = 'unavailable' | 'ambiguous' | 'rejected' | 'already-started';

const GRPC = { CANCELLED: 1, UNKNOWN: 2, DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, INTERNAL: 13, UNAVAILABLE: 14 } as const;

/** Details of a gRPC UNAVAILABLE whose connection broke after the request may have been sent. */
const DROPPED_MID_CALL = /ECONNRESET|EPIPE|connection dropped|socket hang up|stream (?:closed|removed)|RST_STREAM|GOAWAY/i;

/** The {@link StartFailureKind} of what a start threw (the client's ServiceError, its gRPC cause, or the errors of {@link startWorkflow}). */
export function startFailureKind(err: unknown): StartFailureKind {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof WorkflowNotStartedError) return 'unavailable';
    if (e instanceof WorkflowStartUndecidedError) return 'ambiguous';
    if (e instanceof WorkflowExecutionAlreadyStartedError) return 'already-started';
    if (!isGrpcServiceError(e)) continue;
    switch (e.code as number) {
      case GRPC.UNAVAILABLE:
        return DROPPED_MID_CALL.test(e.details ?? e.message) ? 'ambiguous' : 'unavailable';
      case GRPC.RESOURCE_EXHAUSTED:
        return 'unavailable';
      case GRPC.CANCELLED:
      case GRPC.UNKNOWN:
      case GRPC.DEADLINE_EXCEEDED:
      case GRPC.INTERNAL:
        return 'ambiguous';
      default:
        return 'rejected';
    }
  }
  return 'rejected';
}

/** An ambiguous start (see {@link StartFailureKind}) after which describe found no run of it: nothing runs. `cause`: the start's error. */
export class WorkflowNotStartedError extends Error {
  constructor(readonly workflowId: string, cause: unknown) {
    super(`the start of ${workflowId} failed and no run of it exists`, { cause });
    this.name = 'WorkflowNotStartedError';
  }
}

/** An ambiguous start whose describe failed too: a run may exist; the committed resource is kept for the reconciler. `cause`: the start's error. */
export class WorkflowStartUndecidedError extends Error {
  constructor(readonly workflowId: string, cause: unknown) {
    super(`the start of ${workflowId} may or may not have made a run (describing it failed too)`, { cause });
    this.name = 'WorkflowStartUndecidedError';
  }
}

/** State of a workflow ID's latest run: `running`, `closed`, or `missing` (never started). */
export type WorkflowRunState = 'running' | 'closed' | 'missing';

/** The {@link WorkflowRunState} of `workflowId` (describe reads it consistently; visibility lags). */
export async function workflowRunState(client: Client, workflowId: string): Promise<WorkflowRunState> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'missing';
    throw err;
  }
}
