/** Every workflow registered on the `jobs` task queue. */
export { cardAnalysisWorkflow, scrapRefineWorkflow } from './san/scrap-jobs';
export { reconcilePendingJobsWorkflow, noopWorkflow } from './core/maintenance';
export { tilGithubCommitWorkflow } from './san/github-commit';
export {
  recoverStaleJobsWorkflow,
  retryFailedJobsWorkflow,
  retryJobWorkflow,
} from './core/recovery';
export { recoverMissingCardsWorkflow, recoverUnrefinedScrapsWorkflow } from './san/recovery';
export { githubStarRecommendationWorkflow } from './san/star-recommendation';
export { tilGenerationWorkflow } from './san/til';
export { recallQuizGenerationWorkflow } from './san/recall-quiz';
