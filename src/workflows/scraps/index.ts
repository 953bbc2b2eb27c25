/** The knowledge-scrap family's workflows (SAN-6 … SAN-12) on the `jobs` task queue. */
export { cardAnalysisWorkflow, scrapRefineWorkflow } from './scrap-jobs';
export { tilGithubCommitWorkflow } from './github-commit';
export { recoverMissingCardsWorkflow, recoverUnrefinedScrapsWorkflow } from './recovery';
export { githubStarRecommendationWorkflow } from './star-recommendation';
export { tilGenerationWorkflow } from './til';
export { recallQuizGenerationWorkflow } from './recall-quiz';
