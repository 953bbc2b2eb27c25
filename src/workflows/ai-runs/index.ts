/** The AI-runs family's workflow (AR-2 … AR-8) on the `jobs` task queue. */
export { aiRunWorkflow } from './run';
export { reconcileAiRunsWorkflow } from './reconcile';
