/** Every workflow registered on the `jobs` task queue. */
export { cardAnalysisWorkflow, scrapRefineWorkflow } from './scrap-jobs';
export { reconcilePendingJobsWorkflow, noopWorkflow } from './maintenance';
