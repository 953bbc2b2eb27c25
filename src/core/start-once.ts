/**
 * DC-1 one run per workflow ID: the start and state checks every family's starter uses for
 * workflows that are not async_jobs jobs (AI runs, portal links, study-card extractions). Names no
 * family.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';

/** Start options of {@link startOnce}: everything but the ID policies, which it fixes. */
export type StartOnceOptions = Omit<WorkflowStartOptions, 'workflowIdReusePolicy' | 'workflowIdConflictPolicy'>;

/**
 * Starts `workflowType` under `opts.workflowId` with REJECT_DUPLICATE and conflict policy FAIL, so
 * an ID that has (or had) a run never gets a second one: `already-running` instead.
 * @throws what `client.workflow.start` throws otherwise (e.g. Temporal unreachable).
 */
export async function startOnce(client: Client, workflowType: string, opts: StartOnceOptions): Promise<'started' | 'already-running'> {
  try {
    await client.workflow.start(workflowType, {
      ...opts,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already-running';
    throw err;
  }
}

/** State of a workflow ID's latest run: `running`, `closed`, or `missing` (never started). */
export async function workflowRunState(client: Client, workflowId: string): Promise<'running' | 'closed' | 'missing'> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'missing';
    throw err;
  }
}
