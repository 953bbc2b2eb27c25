/** The AI-runs family's reconcile pass (AR-7, SAN-4 pattern), run by its own Schedule on the `maintenance` queue. */
import { proxyActivities } from '@temporalio/workflow';
import type { AiRunReconcileActivities, AiRunReconcileReport } from '../../activities/ai-runs/reconcile';
import { MAINTENANCE_RETRY } from '../../core/activity-options';
import type { ReconcileInput } from '../core/maintenance';

/**
 * Starts runs whose workflow start was lost after commit and re-sends lost manual-retry signals
 * (never a second run: the workflow ID is the run's). Schedule `reconcile-ai-runs`; safe to run at
 * any time and concurrently.
 */
export async function reconcileAiRunsWorkflow(input: ReconcileInput): Promise<AiRunReconcileReport> {
  const acts = proxyActivities<AiRunReconcileActivities>({ startToCloseTimeout: '10m', heartbeatTimeout: '30s', retry: MAINTENANCE_RETRY });
  return acts.reconcileAiRuns({ graceSeconds: input.graceSeconds, limit: input.limit ?? 500 });
}
