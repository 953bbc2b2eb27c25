/**
 * Entry point of the `portal` task queue (DC-2, PO-5): the portal-link family's scrape activity
 * only (log into the university portal, store the result in object storage, post the signed
 * callback), with PORTAL_ACTIVITY_CONCURRENCY, so a slow or failing portal cannot starve
 * projection, AI or GitHub work. The PO manifest declares the queue and its activities
 * (`portalScrapeActivitiesFromConfig`, src/activities/portal/scrape.ts). `npm run worker:portal`.
 */
import { runWorkerProcess } from './run';
import { createOwnQueueWorker } from './own-queue';

/** The queue this entry point serves (declared by the PO manifest). */
export { PORTAL_QUEUE } from '../domain/portal/contracts';
import { PORTAL_QUEUE } from '../domain/portal/contracts';

if (require.main === module) {
  runWorkerProcess('worker-portal', (r) => createOwnQueueWorker(PORTAL_QUEUE, r), (config) => ({
    portals: Object.keys(config.portal.baseUrls),
    bucket: config.objectStore.bucket,
    objectStore: config.objectStore.endpoint ?? 'aws',
  }));
}
