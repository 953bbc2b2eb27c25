/**
 * Starts the Temporal workflow of a committed async_jobs row (SAN-4, DC-1, DC-4). Idempotent: the
 * workflow ID is derived from job type and target, so a second start of a running job is a no-op.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { jobMetrics } from './metrics';
import { jobSearchAttributes, jobWorkflowId, type JobRef, type JobType, type JobWorkflowInput, type JobWorkflowTypes, type TaskQueues } from './contracts';

/**
 * A committed job to start. `companions`: committed jobs its workflow starts first thing
 * ({@link JobWorkflowInput.companions}); the caller makes one start for all of them.
 */
export interface StartableJob {
  jobId: string;
  jobType: JobType;
  targetId: string;
  userId: string;
  companions?: readonly StartableJob[];
}

/** The bare identity of a job (a Prisma row carries more fields than a workflow input needs). */
function refOf(job: StartableJob): JobRef {
  return { jobId: job.jobId, jobType: job.jobType, targetId: job.targetId, userId: job.userId };
}

/** Outcome of a start: `started` (new run) or `already-running` (same workflow ID open). */
export type StartOutcome = 'started' | 'already-running';

/** Starts job workflows; implemented over Temporal, replaceable for fault-injection tests. */
export interface JobStarter {
  /** @throws when Temporal is unreachable; the row stays PENDING and the reconciler starts it. */
  start(job: StartableJob): Promise<StartOutcome>;
}

/** Options of {@link createTemporalJobStarter}. */
export interface StarterOptions {
  /**
   * Ask for eager workflow start (issue 7 §1): the server hands the run's first workflow task
   * straight back to a worker of the `jobs` queue sharing `client`'s NativeConnection, saving the
   * task's dispatch; without such a worker (or when the server declines) it is an ordinary start.
   */
  eager?: boolean;
}

/**
 * Temporal-backed {@link JobStarter}: workflow ID `<job-type>:<targetId>`, search attributes set,
 * the workflow type from `workflowTypes` (the families' job type → workflow map). Every attempt is
 * counted in `jobs_started_total` by job type and outcome (started, already-running, failed).
 */
export function createTemporalJobStarter(client: Client, queues: TaskQueues, workflowTypes: JobWorkflowTypes, opts: StarterOptions = {}): JobStarter {
  return {
    async start(job) {
      const workflowType = workflowTypes[job.jobType];
      if (!workflowType) throw new Error(`no workflow registered for job type ${job.jobType}`);
      const input: JobWorkflowInput = {
        ...refOf(job), queues, localWrites: true, ...(job.companions?.length ? { companions: job.companions.map(refOf), companionsAfterWork: true } : {}),
      };
      try {
        await client.workflow.start(workflowType, {
          workflowId: jobWorkflowId(job.jobType, job.targetId),
          taskQueue: queues.jobs,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
          typedSearchAttributes: jobSearchAttributes(job),
          memo: { jobId: job.jobId },
          ...(opts.eager ? { requestEagerStart: true } : {}),
        });
        jobMetrics.started(job.jobType, 'started');
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          jobMetrics.started(job.jobType, 'already-running');
          return 'already-running';
        }
        jobMetrics.started(job.jobType, 'failed');
        throw err;
      }
    },
  };
}
