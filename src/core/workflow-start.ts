/**
 * The one start primitive (DC-1, DC-4): starts a workflow under its business workflow ID with the
 * workflow-ID reuse policy the caller names, counts the attempt in `jobs_started_total`, and
 * describes a workflow ID's latest run. Every starter (async_jobs and the families') builds its
 * workflow input and calls {@link startWorkflow}.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type TypedSearchAttributes } from '@temporalio/common';
import { jobMetrics } from './metrics';

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
  /** `job_type` label of `jobs_started_total`: the job type, or the kind of a workflow that runs no async_jobs row. */
  jobType: string;
  /**
   * Ask for eager workflow start: the server hands the run's first workflow task straight back to
   * a worker of `taskQueue` sharing the client's NativeConnection; without one (or when the server
   * declines) it is an ordinary start.
   */
  eager?: boolean;
}

/**
 * Starts `start.workflowType` under `start.workflowId` with conflict policy FAIL (a running ID is
 * never started twice) and the reuse policy of `start.reuse`. Counted in `jobs_started_total` by
 * job type and outcome (started, already-running, failed).
 * @returns `already-running` when the ID has an open run, or (`reject-duplicate`) had one.
 * @throws what `client.workflow.start` throws otherwise (e.g. Temporal unreachable).
 */
export async function startWorkflow(client: Client, start: WorkflowStart): Promise<StartOutcome> {
  try {
    await client.workflow.start(start.workflowType, {
      workflowId: start.workflowId,
      taskQueue: start.taskQueue,
      args: start.args,
      workflowIdReusePolicy: REUSE_POLICIES[start.reuse],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      typedSearchAttributes: start.searchAttributes,
      ...(start.memo ? { memo: start.memo } : {}),
      ...(start.eager ? { requestEagerStart: true } : {}),
    });
    jobMetrics.started(start.jobType, 'started');
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      jobMetrics.started(start.jobType, 'already-running');
      return 'already-running';
    }
    jobMetrics.started(start.jobType, 'failed');
    throw err;
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
