/**
 * Shared skeleton of every job workflow (SAN-4, DC-3): PROCESSING, the work, then COMPLETED (done
 * by the work's own transactional activity) or FAILED with the cause chain; the workflow then fails
 * too, so operators find it with `ExecutionStatus="Failed"`.
 */
import {
  ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, log, patched, proxyActivities, proxyLocalActivities,
  TemporalFailure, workflowInfo,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import type { JobActivities } from '../../activities/core/jobs';
import { localProjectionOptions, projectionOptions } from '../../core/activity-options';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { formatCauseChain } from '../../core/cause-chain';
import { CORE_FAILURES } from '../../core/errors';
import { failure } from '../../core/failures';

/** The core's projection activities on the `jobs` queue: idempotent, bounded retries (PROJECTION_RETRY). */
export function projectionActivities(input: Pick<JobWorkflowInput, 'queues'>) {
  return proxyActivities<JobActivities>(projectionOptions(input.queues.jobs));
}

/** The core's projection activities as local activities (LOCAL_PROJECTION_RETRY). */
export function localProjectionActivities() {
  return proxyLocalActivities<JobActivities>(localProjectionOptions());
}

/**
 * `patched()` ID of projection writes as local activities, asked only when the input lacks
 * `localWrites`. Histories without its marker schedule beginJob, the work's store activity and
 * failJob on the `jobs` queue and replay on that branch. Remove (with `deprecatePatch` first) once
 * no such run can be open.
 */
export const LOCAL_PROJECTION_PATCH = 'local-projection-writes';

/**
 * `patched()` ID of companions started once the work is over (`companionsAfterWork`), asked only
 * when the input asks for it: a run whose worker ignored the flag has no marker and replays on the
 * companions-first branch, whatever the order in which API and workers are deployed.
 */
export const COMPANIONS_AFTER_WORK_PATCH = 'companions-after-work';

/** What {@link runJob} tells its work: `local` true when projection writes go local-first ({@link localFirst}). */
export interface JobRun {
  local: boolean;
}

/**
 * A projection write, local-first: `local` (a local activity: its input is not recorded in the
 * history, only its result) unless `useLocal` is false (a history with remote writes);
 * when the local attempts are exhausted by retryable failures (LOCAL_PROJECTION_RETRY), `remote`, the
 * same idempotent activity on the `jobs` queue with the full PROJECTION_RETRY budget, where the
 * stale-jobs recovery sees a stuck attempt (SAN-6). A non-retryable failure or a cancellation is
 * thrown at once.
 */
export async function localFirst<R>(useLocal: boolean, local: () => Promise<R>, remote: () => Promise<R>): Promise<R> {
  if (!useLocal) return remote();
  try {
    return await local();
  } catch (err) {
    // A local activity's last failure arrives as is (an ApplicationFailure, a TimeoutFailure), not
    // wrapped in an ActivityFailure.
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (isCancellation(err) || !(cause instanceof TemporalFailure)) throw err;
    if (err instanceof ActivityFailure && err.retryState === RetryState.NON_RETRYABLE_FAILURE) throw err;
    if (cause instanceof ApplicationFailure && cause.nonRetryable) throw err;
    log.warn('local projection write failed; retrying it as an activity', { error: cause.message });
    return remote();
  }
}

/**
 * Activities `A` where each call is {@link localFirst}: the local activity from `local` (when
 * `useLocal`), else or when its local attempts are exhausted the same activity from `remote`.
 * For projection writes of family workflows that do not run on {@link runJob}.
 */
export function localFirstActivities<A extends object>(useLocal: boolean, local: A, remote: A): A {
  return new Proxy({} as A, {
    get(_target, name) {
      const pick = (acts: A) => (acts as Record<string | symbol, (...args: unknown[]) => Promise<unknown>>)[name]!;
      return (...args: unknown[]) => localFirst(useLocal, () => pick(local)(...args), () => pick(remote)(...args));
    },
  });
}

/**
 * SAN-4: the job's answer to a cancellation of its workflow (`temporal workflow cancel`): records
 * FAILED `cancelled: <reason>` in a non-cancellable scope, and returns JOB_CANCELLED
 * (non-retryable, `cause` = the cancellation) for the workflow to throw. For family workflows
 * with a skeleton of their own: `catch (err) { if (isCancellation(err)) throw await jobCancelled(input, err); … }`.
 */
export async function jobCancelled(input: JobWorkflowInput, err: unknown): Promise<ApplicationFailure> {
  const { workflowId, runId } = workflowInfo();
  const { errorMessage } = await CancellationScope.nonCancellable(() =>
    projectionActivities(input).failCancelledJob({ jobId: input.jobId, jobType: input.jobType, targetId: input.targetId, workflowId, runId }),
  );
  return failure(CORE_FAILURES, 'JOB_CANCELLED', `${input.jobType} job ${input.jobId} ${errorMessage}`, {
    cause: err instanceof Error ? err : undefined,
  });
}

/**
 * Starts `input.companions` (a local activity; not cancellable when `afterWork`, so a cancelled
 * job still starts them). Never throws: companions that could not be started are PENDING rows,
 * which the SAN-4 reconciler starts.
 */
async function startCompanions(input: JobWorkflowInput, afterWork = false): Promise<void> {
  const companions = input.companions ?? [];
  if (companions.length === 0) return;
  try {
    const start = () => localProjectionActivities().startJobs(companions);
    await (afterWork ? CancellationScope.nonCancellable(start) : start());
  } catch (err) {
    log.warn('companion jobs not started; the reconciler will start them', { jobIds: companions.map((c) => c.jobId), error: String(err) });
  }
}

/**
 * Runs `work` between beginJob and the FAILED bookkeeping. A row that is already terminal (a late
 * duplicate start) returns SKIPPED without doing anything. Throws JOB_FAILED (non-retryable) with
 * the work's failure as its cause; a cancellation of the workflow records FAILED `cancelled: …`
 * and throws JOB_CANCELLED ({@link jobCancelled}). Runs with `localWrites` or
 * {@link LOCAL_PROJECTION_PATCH} write beginJob and failJob local-first ({@link localFirst}) and
 * tell `work` to write local-first too (`run.local`). `input.companions` are started once the work
 * is over, whatever its outcome (`companionsAfterWork`), else in the first workflow task.
 */
export async function runJob(input: JobWorkflowInput, work: (run: JobRun) => Promise<void>): Promise<JobWorkflowResult> {
  // Current starters set localWrites; an input without it may replay a history with remote writes.
  const local = input.localWrites === true || patched(LOCAL_PROJECTION_PATCH);
  const afterWork = input.companionsAfterWork === true && patched(COMPANIONS_AFTER_WORK_PATCH);
  const jobs = projectionActivities(input);
  const localJobs = localProjectionActivities();
  let begun = false;
  try {
    const companions = local && !afterWork ? startCompanions(input) : Promise.resolve();
    const [begin] = await Promise.all([localFirst(local, () => localJobs.beginJob(input.jobId), () => jobs.beginJob(input.jobId)), companions]);
    if (!begin.proceed) return { jobId: input.jobId, status: 'SKIPPED' };
    begun = true;
    await work({ local });
    return { jobId: input.jobId, status: 'COMPLETED' };
  } catch (err) {
    if (isCancellation(err)) throw await jobCancelled(input, err);
    if (!begun) throw err;
    // Not cancellable: a cancellation arriving now must not leave the row PROCESSING.
    const chain = formatCauseChain(err);
    await CancellationScope.nonCancellable(() =>
      localFirst(local, () => localJobs.failJob(input.jobId, chain), () => jobs.failJob(input.jobId, chain)),
    );
    throw failure(CORE_FAILURES, 'JOB_FAILED', `${input.jobType} job ${input.jobId} failed`, {
      cause: err instanceof Error ? err : undefined,
    });
  } finally {
    // Whatever the outcome, once its bookkeeping (COMPLETED, FAILED, SKIPPED, cancelled) is done.
    if (afterWork) await startCompanions(input, true);
  }
}
