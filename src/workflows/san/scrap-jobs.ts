/** CARD_ANALYSIS (SAN-7) and SCRAP_REFINE (SAN-8) workflows. */
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { runJob } from '../core/job-runner';
import { aiActivities, cardActivities } from './proxies';

/**
 * SAN-7 CARD_ANALYSIS, workflow ID `card-analysis:<scrapId>`: AI analysis on the `ai` queue, then
 * the card stored and the job completed in one transaction. Retry: AI up to 4 attempts.
 */
export async function cardAnalysisWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  return runJob(input, async () => {
    const analysis = await aiActivities(input).analyzeScrap({ scrapId: input.targetId });
    await cardActivities(input).storeCard({
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
    await cardActivities(input).storeRefinement({ jobId: input.jobId, scrapId: input.targetId, refinedContent });
  });
}
