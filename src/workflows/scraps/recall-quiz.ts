/** RECALL_QUIZ_GENERATION (SAN-11): quizzes over one date's cards, stored with their generation. */
import { CORE_FAILURES } from '../../core/errors';
import { failure } from '../../core/failures';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { formatCauseChain } from '../../core/cause-chain';
import { isCancellation } from '@temporalio/workflow';
import { jobCancelled } from '../core/job-runner';
import { generationActivities, tilProjectionActivities } from './til';

/**
 * SAN-11 RECALL_QUIZ_GENERATION, workflow ID `recall-quiz-generation:<generationId>`: reads date and
 * quiz types from recall_quiz_generations, collects that date's cards, asks the AI runtime for
 * quizzes (re-validated), stores them and completes. Same shape as `runJob`, but every job
 * transition (PROCESSING, COMPLETED, FAILED) moves the generation's status in the same
 * transaction. A terminal job (late duplicate start) returns SKIPPED. Retry: AI up to 4 attempts.
 */
export async function recallQuizGenerationWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  const quiz = tilProjectionActivities(input);
  const generationId = input.targetId;
  const begin = await quiz.beginRecallQuizJob({ jobId: input.jobId, generationId });
  if (!begin.proceed) return { jobId: input.jobId, status: 'SKIPPED' };
  try {
    const { cardIds, types } = await quiz.collectQuizCards({ generationId });
    const quizzes = await generationActivities(input).generateQuizzes({ cardIds, types });
    await quiz.storeRecallQuizzes({ jobId: input.jobId, generationId, quizzes });
  } catch (err) {
    if (isCancellation(err)) throw await jobCancelled(input, err); // FAILED `cancelled: …`, generation mirrored
    await quiz.failRecallQuizJob({ jobId: input.jobId, generationId, errorMessage: formatCauseChain(err) });
    throw failure(CORE_FAILURES, 'JOB_FAILED', `${input.jobType} job ${input.jobId} failed`, { cause: err instanceof Error ? err : undefined });
  }
  return { jobId: input.jobId, status: 'COMPLETED' };
}
