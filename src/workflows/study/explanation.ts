/** The study family's STUDY_EXPLANATION job, an async_jobs job on the core's skeleton. */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { StudyExplanationActivities, StudyExplanationAiActivities } from '../../activities/study/explanation';
import { localProjectionOptions, projectionOptions, providerOptions } from '../../core/activity-options';
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { localFirst, runJob } from '../core/job-runner';

/**
 * STUDY_EXPLANATION, workflow ID `study-explanation:<questionId>`: the AI explanation of the question
 * (and its embedding) on the `ai` queue through the AI runtime boundary, then stored with a new
 * source version (a strictly later ai_explanation_generated_at) and the job completed in one
 * transaction. Retry: AI up to 4 attempts (PROVIDER_RETRY); the store PROJECTION_RETRY.
 */
export async function studyExplanationWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  return runJob(input, async (run) => {
    const ai = proxyActivities<StudyExplanationAiActivities>(providerOptions(input.queues.ai));
    const result = await ai.explainStudyQuestion({ questionId: input.targetId });
    const args = { jobId: input.jobId, questionId: input.targetId, ...result };
    await localFirst(
      run.local,
      () => proxyLocalActivities<StudyExplanationActivities>(localProjectionOptions()).storeStudyExplanation(args),
      () => proxyActivities<StudyExplanationActivities>(projectionOptions(input.queues.jobs)).storeStudyExplanation(args),
    );
  });
}
