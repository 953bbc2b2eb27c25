/** The portal-link family's reconcile pass (PO-3, SAN-4 pattern), run by its own Schedule on the `maintenance` queue. */
import { proxyActivities } from '@temporalio/workflow';
import type { PortalLinkReconcileActivities, PortalLinkReconcileReport } from '../../activities/portal/reconcile';
import { MAINTENANCE_RETRY } from '../../core/activity-options';
import type { ReconcileInput } from '../core/maintenance';

/**
 * Starts the workflows of QUEUED link jobs whose start was lost after their commit (never a second
 * run: the workflow ID is the job's). The password is never stored, so such a start carries none and
 * the job FAILS PORTAL_CREDENTIALS_REQUIRED instead of staying QUEUED forever. Schedule
 * `reconcile-portal-link-jobs`; safe to run at any time and concurrently.
 */
export async function reconcilePortalLinkJobsWorkflow(input: ReconcileInput): Promise<PortalLinkReconcileReport> {
  const acts = proxyActivities<PortalLinkReconcileActivities>({ startToCloseTimeout: '10m', heartbeatTimeout: '30s', retry: MAINTENANCE_RETRY });
  return acts.reconcilePortalLinkJobs({ graceSeconds: input.graceSeconds, limit: input.limit ?? 500 });
}
