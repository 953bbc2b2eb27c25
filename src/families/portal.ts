/**
 * The portal-link family (PO-1 … PO-12) declares itself here, once. Its jobs are not async_jobs
 * jobs: their projection is portal_link_jobs with the PO-2 state machine (src/domain/portal/job-state.ts),
 * so it declares no job types; its workflow (`portalLinkWorkflow`, exported from src/workflows) runs
 * on the `jobs` queue with its projection and post-processing activities, the scrape on its own
 * `portal` queue served by src/workers/portal.ts (DC-2), and its reconcile pass (lost starts,
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
import type { FamilyManifest } from './manifest';

/** The PO manifest. */
export const po = {
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
  schedules: [{ name: 'reconcile-portal-link-jobs', workflow: 'reconcilePortalLinkJobsWorkflow', kind: 'reconcile' }],
  queues: [],
  ownQueues: [
    {
      name: PORTAL_QUEUE,
      activities: ({ config }) => portalScrapeActivitiesFromConfig(config),
      concurrency: (config) => config.portal.activityConcurrency,
    },
  ],
} as const satisfies FamilyManifest;
