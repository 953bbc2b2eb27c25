/** Activity proxies of the knowledge-scrap family's workflows, one per task queue (DC-2). */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AiActivities } from '../../activities/scraps/ai';
import type { CardActivities } from '../../activities/scraps/cards';
import { localProjectionOptions, projectionOptions, PROVIDER_HEARTBEAT_TIMEOUT, providerOptions } from '../../core/activity-options';
import type { JobWorkflowInput } from '../../core/contracts';

/**
 * `ai`-queue activities: heartbeats detect a dead worker within `heartbeatTimeout`; at most 4
 * attempts with exponential backoff; a provider's Retry-After overrides the next delay.
 * `startToCloseTimeout` per attempt: 2 min for one scrap, longer for a whole day of cards.
 */
export function aiActivities(input: Pick<JobWorkflowInput, 'queues'>, startToCloseTimeout = '2m', heartbeatTimeout = PROVIDER_HEARTBEAT_TIMEOUT) {
  return proxyActivities<AiActivities>(providerOptions(input.queues.ai, startToCloseTimeout, heartbeatTimeout));
}

/** SAN-7/SAN-8 card and refinement writes on the `jobs` queue. */
export function cardActivities(input: Pick<JobWorkflowInput, 'queues'>) {
  return proxyActivities<CardActivities>(projectionOptions(input.queues.jobs));
}

/** The same writes as local activities: run by the workflow's own worker, input not in the history. */
export function localCardActivities() {
  return proxyLocalActivities<CardActivities>(localProjectionOptions());
}
