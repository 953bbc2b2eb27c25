/**
 * Starts the Temporal workflow of a committed async_jobs row (SAN-4, DC-1, DC-4). Idempotent: the
 * workflow ID is derived from job type and target, so a second start of a running job is a no-op,
 * and the start is keyed by the job's attempt, so one that comes after the attempt's run closed is
 * one too.
 */
import type { Client } from '@temporalio/client';
import { jobSearchAttributes, jobWorkflowId, type JobRef, type JobType, type JobWorkflowInput, type JobWorkflowTypes, type TaskQueues } from './contracts';
import { startWorkflow, type StartOutcome, type UnkeyedRun } from './workflow-start';

/**
 * A committed job to start. `companions`: committed jobs its workflow starts first thing
 * ({@link JobWorkflowInput.companions}); the caller makes one start for all of them.
 */
export interface StartableJob {
  jobId: string;
  jobType: JobType;
  targetId: string;
  userId: string;
  /** SAN-6 re-runs so far (the row's retry_count; absent: 0, a new job): each re-run is a run of its own. */
  retryCount?: number;
  /** When the row last changed (absent: unknown): a closed run of this job without a run key that closed since is this attempt's. */
  updatedAt?: Date;
  companions?: readonly StartableJob[];
}

/** The bare identity of a job (a Prisma row carries more fields than a workflow input needs). */
function refOf(job: StartableJob): JobRef {
  return { jobId: job.jobId, jobType: job.jobType, targetId: job.targetId, userId: job.userId };
}

/** Starts job workflows; implemented over Temporal, replaceable for fault-injection tests. */
export interface JobStarter {
  /** @throws when Temporal is unreachable; the row stays PENDING and the reconciler starts it. */
  start(job: StartableJob): Promise<StartOutcome>;
}

/** Options of {@link createTemporalJobStarter}. */
export interface StarterOptions {
  /** Eager workflow start ({@link WorkflowStart.eager}), for a worker of the `jobs` queue on the client's connection. */
  eager?: boolean;
}

/**
 * Temporal-backed {@link JobStarter}: workflow ID `<job-type>:<targetId>` with `allow-duplicate`
 * keyed by job and retry count ({@link jobRunKey}): every start of one attempt of a job makes at
 * most one run, however late it comes (SAN-4), while a re-run (SAN-6) or the target's next job
 * starts a new run under the same ID. Search attributes set, the workflow type from
 * `workflowTypes` (the families' job type → workflow map).
 * @throws Error when `workflowTypes` has no workflow for the job type.
 */
export function createTemporalJobStarter(client: Client, queues: TaskQueues, workflowTypes: JobWorkflowTypes, opts: StarterOptions = {}): JobStarter {
  return {
    async start(job) {
      const workflowType = workflowTypes[job.jobType];
      if (!workflowType) throw new Error(`no workflow registered for job type ${job.jobType}`);
      const input: JobWorkflowInput = {
        ...refOf(job), queues, localWrites: true, ...(job.companions?.length ? { companions: job.companions.map(refOf), companionsAfterWork: true } : {}),
      };
      return startWorkflow(client, {
        workflowType,
        workflowId: jobWorkflowId(job.jobType, job.targetId),
        taskQueue: queues.jobs,
        args: [input],
        reuse: 'allow-duplicate',
        runKey: jobRunKey(job),
        ...(job.updatedAt ? { isKeyRun: ranSince(job.jobId, job.updatedAt) } : {}),
        searchAttributes: jobSearchAttributes(job),
        memo: { jobId: job.jobId },
        jobType: job.jobType,
        ...(opts.eager ? { eager: true } : {}),
      });
    },
  };
}

/** The {@link WorkflowStart.runKey} of one attempt of a job: `<jobId>:<retryCount>`. */
export function jobRunKey(job: Pick<StartableJob, 'jobId' | 'retryCount'>): string {
  return `${job.jobId}:${job.retryCount ?? 0}`;
}

/** A run of job `jobId` that closed at or after `since` (the row's last change) ran the row's current attempt. */
function ranSince(jobId: string, since: Date): (run: UnkeyedRun) => boolean {
  return (run) => run.memo?.jobId === jobId && run.closeTime !== undefined && run.closeTime >= since;
}
