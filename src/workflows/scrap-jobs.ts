/** CARD_ANALYSIS (SAN-7) and SCRAP_REFINE (SAN-8) workflows. */
import { proxyActivities } from '@temporalio/workflow';
import type { AiActivities } from '../activities/ai';
import type { JobWorkflowInput, JobWorkflowResult } from '../shared/contracts';
import { projectionActivities, runJob } from './job-runner';

/** AI activity options: heartbeats detect a dead worker within 10 s; at most 4 attempts. */
function aiActivities(input: JobWorkflowInput) {
  return proxyActivities<AiActivities>({
    taskQueue: input.queues.ai,
    startToCloseTimeout: '2m',
    heartbeatTimeout: '10s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 4 },
  });
}

/**
 * SAN-7 CARD_ANALYSIS, workflow ID `card-analysis:<scrapId>`: AI analysis on the `ai` queue, then
 * the card stored and the job completed in one transaction. Retry: AI up to 4 attempts.
 */
export async function cardAnalysisWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  return runJob(input, async () => {
    const analysis = await aiActivities(input).analyzeScrap({ scrapId: input.targetId });
    await projectionActivities(input).storeCard({
      jobId: input.jobId,
      scrapId: input.targetId,
      userId: input.userId,
      analysis,
    });
  });
}

/**
 * SAN-8 SCRAP_REFINE, workflow ID `scrap-refine:<scrapId>`: refined content from the AI runtime
 * stored on the scrap. Independent of CARD_ANALYSIS. Retry: AI up to 4 attempts.
 */
export async function scrapRefineWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  return runJob(input, async () => {
    const { refinedContent } = await aiActivities(input).refineScrap({ scrapId: input.targetId });
    await projectionActivities(input).storeRefinement({ jobId: input.jobId, scrapId: input.targetId, refinedContent });
  });
}
