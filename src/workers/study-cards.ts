/**
 * Entry point of the `study-cards` task queue (ST-6, DC-2): the study family's memo-card poller and
 * extraction workflows and their activities (context gathering, the AI provider's memo-card call,
 * the guards, the supersede) only, with ST_ACTIVITY_CONCURRENCY, isolated from the explanation jobs
 * on `ai` and every other queue. At start-up it creates the poller's Schedule (ST-3, idempotent).
 * `npm run worker:study-cards`.
 */
import { openTemporalClient } from '../core/connections';
import { runWorkerProcess } from './run';
import { createOwnQueueWorker, ensureOwnQueueSchedules } from './own-queue';
import { STUDY_CARDS_QUEUE } from '../domain/study/contracts';

/** The queue this entry point serves (declared by the ST manifest). */
export { STUDY_CARDS_QUEUE };

if (require.main === module) {
  runWorkerProcess(
    'worker-study-cards',
    async (r) => {
      const client = await openTemporalClient(r.config);
      try {
        await ensureOwnQueueSchedules(STUDY_CARDS_QUEUE, client, r.config);
      } finally {
        await client.connection.close();
      }
      return createOwnQueueWorker(STUDY_CARDS_QUEUE, r);
    },
    (config) => ({ provider: config.ai.provider, pollIntervalSeconds: config.study.poll.intervalSeconds, pollLimit: config.study.poll.limit }),
  );
}
