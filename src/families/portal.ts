/**
 * The portal-link family (PO-1 … PO-12) declares itself here, once. Its jobs are not async_jobs
 * jobs: their projection is portal_link_jobs with the PO-2 state machine (src/domain/portal/job-state.ts),
 * so it declares no job types; its workflow (`portalLinkWorkflow`, exported from src/workflows) runs
 * on the `jobs` queue with its projection and post-processing activities, the scrape (log into the
 * portal, store the result in object storage, post the signed callback) on its own `portal` queue
 * (DC-2, PO-5: a slow portal cannot starve other work), and its reconcile pass (lost starts,
 * workflows closed without finishing their job) on the `maintenance` queue by its own Schedule.
 */
import { createPortalLinkJobActivities } from '../activities/portal/jobs';
import { createPortalPostProcessActivities } from '../activities/portal/post-process';
import { createPortalLinkReconcileActivities } from '../activities/portal/reconcile';
import { portalScrapeActivitiesFromConfig } from '../activities/portal/scrape';
import { poRoutes } from '../api/routes/portal';
import { PO_ERRORS } from '../domain/portal/errors';
import { createTemporalPortalLinkStarter } from '../services/portal/starter';
import { createS3ObjectStore } from '../storage/s3';
import { PORTAL_QUEUE } from '../domain/portal/contracts';
import { reconcileSchedule } from './core';
import { PORTAL_CONFIG } from '../config/portal';
import { defineFamily } from './manifest';

/** The portal manifest. */
export const portal = defineFamily(PORTAL_CONFIG, {
  name: 'portal',
  jobs: {},
  errors: [PO_ERRORS],
  routes: poRoutes,
  activities: {
    jobs: ({ db, config }) => ({
      ...createPortalLinkJobActivities({ db }),
      ...createPortalPostProcessActivities({
        db, store: createS3ObjectStore(config.objectStore), prefix: config.objectStore.prefix, toleranceSeconds: config.portal.callbackToleranceSeconds,
      }),
    }),
    maintenance: ({ db, client, config }) => createPortalLinkReconcileActivities({ db, starter: createTemporalPortalLinkStarter(client, config) }),
  },
  queues: [
    {
      name: PORTAL_QUEUE,
      summary: 'the portal scrape: log in, store the result in object storage, post the signed callback (PO-5)',
      activityConcurrency: { env: 'PORTAL_ACTIVITY_CONCURRENCY', of: (c) => c.portal.activityConcurrency },
      activities: ({ config }) => portalScrapeActivitiesFromConfig(config),
      describe: (c) => ({ portals: Object.keys(c.portal.baseUrls), bucket: c.objectStore.bucket, objectStore: c.objectStore.endpoint ?? 'aws' }),
    },
  ],
  schedules: [reconcileSchedule('reconcile-portal-link-jobs', 'reconcilePortalLinkJobsWorkflow')],
  // PO-6 scrape results and their post-processing read and write object storage.
  needs: ['object-store'],
});
