/** CARD_ANALYSIS (SAN-7) and SCRAP_REFINE (SAN-8) workflows. */
import type { JobWorkflowInput, JobWorkflowResult } from '../../core/contracts';
import { localFirst, runJob } from '../core/job-runner';
import { aiActivities, cardActivities, localCardActivities } from './proxies';

/**
 * SAN-7 CARD_ANALYSIS, workflow ID `card-analysis:<scrapId>`: AI analysis on the `ai` queue, then
 * the card stored and the job completed in one transaction (a local activity first: the
 * 1536-float embedding is then in the history once, as the AI result, not again as storeCard's
 * input). Retry: AI up to 4 attempts; storeCard PROJECTION_RETRY.
 */
export async function cardAnalysisWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  return runJob(input, async (run) => {
    const analysis = await aiActivities(input).analyzeScrap({ scrapId: input.targetId, embedding: 'f32' });
    const args = { jobId: input.jobId, scrapId: input.targetId, userId: input.userId, analysis };
    await localFirst(run.local, () => localCardActivities().storeCard(args), () => cardActivities(input).storeCard(args));
  });
}

/**
 * SAN-8 SCRAP_REFINE, workflow ID `scrap-refine:<scrapId>`: refined content from the AI runtime
 * stored on the scrap. Independent of CARD_ANALYSIS. Retry: AI up to 4 attempts.
 */
export async function scrapRefineWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  return runJob(input, async (run) => {
    const { refinedContent } = await aiActivities(input).refineScrap({ scrapId: input.targetId });
    const args = { jobId: input.jobId, scrapId: input.targetId, refinedContent };
    await localFirst(run.local, () => localCardActivities().storeRefinement(args), () => cardActivities(input).storeRefinement(args));
  });
}
