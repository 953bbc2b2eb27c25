/**
 * Entry point of the `ai-runs` task queue (DC-2, AR-2/AR-8): the AI-runs family's runtime calls
 * only (one activity per attempt, heartbeating), with AI_RUNS_ACTIVITY_CONCURRENCY, so a slow AI
 * runtime cannot starve projection, SAN AI or GitHub work. `npm run worker:ai-runs`.
 */
import { runWorkerProcess } from './run';
import { createOwnQueueWorker } from './own-queue';

/** The queue this entry point serves (declared by the AR manifest). */
export { AI_RUNS_QUEUE } from '../domain/ai-runs/contracts';
import { AI_RUNS_QUEUE } from '../domain/ai-runs/contracts';

if (require.main === module) {
  runWorkerProcess('worker-ai-runs', (r) => createOwnQueueWorker(AI_RUNS_QUEUE, r), (config) => ({ runtime: config.aiRuns.runtime }));
}
