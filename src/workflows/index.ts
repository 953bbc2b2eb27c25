/** Every workflow registered on the `jobs` task queue. */
export { cardAnalysisWorkflow, scrapRefineWorkflow } from './scrap-jobs';
export { reconcilePendingJobsWorkflow, noopWorkflow } from './maintenance';
export { tilGithubCommitWorkflow } from './github-commit';
export {
  recoverStaleJobsWorkflow,
  retryFailedJobsWorkflow,
  recoverMissingCardsWorkflow,
  recoverUnrefinedScrapsWorkflow,
  retryJobWorkflow,
} from './recovery';
export { githubStarRecommendationWorkflow } from './star-recommendation';
export { tilGenerationWorkflow } from './til';
export { recallQuizGenerationWorkflow } from './recall-quiz';
