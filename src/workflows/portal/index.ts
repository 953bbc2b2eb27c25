/** The portal-link family's workflows (PO-2 … PO-7) on the `jobs` task queue. */
export { portalLinkWorkflow } from './link';
export { reconcilePortalLinkJobsWorkflow } from './reconcile';
