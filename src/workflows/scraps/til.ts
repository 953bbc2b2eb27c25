/** TIL_GENERATION (SAN-9): the daily TIL of a summary, then its automatic recall quizzes (SAN-11). */
import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { localProjectionOptions, PROJECTION_RETRY } from '../../core/activity-options';
import type { TilActivities } from '../../activities/scraps/til';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { localFirstActivities, runJob } from '../core/job-runner';
import { aiActivities } from './proxies';

/** `jobs`-queue TIL/quiz projection activities: idempotent, retried until the database answers. */
export function tilProjectionActivities(input: JobWorkflowInput) {
  return proxyActivities<TilActivities>({
    taskQueue: input.queues.jobs,
    startToCloseTimeout: '30s',
    retry: PROJECTION_RETRY,
  });
}

/**
 * `patched()` ID of TIL_GENERATION's own writes (collect, store, the quiz job's start) as local
 * activities first, the `jobs`-queue activities their fallback: no task round trip per write,
 * and the TIL (with its embedding) in the history once, as the AI result, not again as
 * storeTil's input. Histories without its marker replay on the activity branch.
 */
export const TIL_LOCAL_WRITES_PATCH = 'til-local-writes';

/** `ai`-queue generation activities: a whole day of cards may take a model a while (5 min per attempt). */
export function generationActivities(input: JobWorkflowInput) {
  return aiActivities(input, '5m');
}

/**
 * SAN-9 TIL_GENERATION, workflow ID `til-generation:<summaryId>`: collects the date's cards (user's
 * time zone), asks the AI runtime for the TIL, stores it and completes the job in one transaction
 * that also creates the summary's one automatic RECALL_QUIZ_GENERATION (idempotency key: summary
 * id), then starts that job's workflow (idempotent by workflow ID). Retry: AI up to 4 attempts.
 */
export async function tilGenerationWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  const localWrites = patched(TIL_LOCAL_WRITES_PATCH);
  return runJob(input, async () => {
    const til = localFirstActivities(localWrites, proxyLocalActivities<TilActivities>(localProjectionOptions()), tilProjectionActivities(input));
    const { targetDate, cardIds } = await til.collectTilCards({ summaryId: input.targetId });
    const result = await generationActivities(input).generateTil({ targetDate, cardIds });
    const quizJob = await til.storeTil({
      jobId: input.jobId,
      summaryId: input.targetId,
      userId: input.userId,
      til: result,
      sourceCardIds: cardIds,
    });
    if (quizJob) await til.startCommittedJob(quizJob);
  });
}
