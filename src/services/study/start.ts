/**
 * Starts the extraction workflow of one enqueued job (ST-3) from outside the poller (the API's
 * explicit enqueue): workflow ID `study-card-extract:<kind>:<id>:<version>` with REJECT_DUPLICATE,
 * so a version is started once, ever. A lost start leaves the row pending: the poller starts it
 * again after ST_POLL_RESTART_GRACE_SECONDS.
 */
import type { Client } from '@temporalio/client';
import type { StudyConfig as Config } from '../../config/study';
import { jobSearchAttributes } from '../../core/contracts';
import { startWorkflow, type StartOutcome } from '../../core/workflow-start';
import { STUDY_CARD_EXTRACT_JOB_TYPE, studyCardQueues, type StudyCardExtractInput } from '../../domain/study/contracts';
import type { EnqueuedJob } from './enqueue';

/** The extraction input of `job` from config (queues and ST_EXTRACT_* policy). */
export function extractInputOf(config: Config, job: EnqueuedJob): StudyCardExtractInput {
  return {
    jobId: job.jobId, userId: job.userId, sourceKind: job.sourceKind, sourceId: job.sourceId, sourceVersion: job.sourceVersion.toISOString(),
    queues: studyCardQueues(config.temporal.taskQueuePrefix),
    policy: { callTimeoutMs: config.study.extract.callTimeoutMs, heartbeatTimeoutMs: config.study.extract.heartbeatTimeoutMs, retryDelayMs: config.study.extract.retryDelayMs },
  };
}

/** Starts `job`'s workflow; `already-running` when its version's workflow exists (or existed). */
export async function startExtraction(client: Client, config: Config, job: EnqueuedJob): Promise<StartOutcome> {
  const input = extractInputOf(config, job);
  return startWorkflow(client, {
    workflowType: 'studyCardExtractWorkflow',
    workflowId: job.workflowId,
    taskQueue: input.queues.studyCards,
    args: [input],
    reuse: 'reject-duplicate',
    searchAttributes: jobSearchAttributes({ jobType: STUDY_CARD_EXTRACT_JOB_TYPE, targetId: job.sourceId, userId: job.userId }),
    memo: { jobId: job.jobId },
    jobType: STUDY_CARD_EXTRACT_JOB_TYPE,
  });
}
