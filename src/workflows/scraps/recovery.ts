/**
 * SAN-6 recovery rules 3 and 4 of the knowledge-scrap family, each run by its own Temporal Schedule
 * (declared in the family's manifest) and safe to run by hand, twice or concurrently.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { RecoveryReport } from '../../activities/core/recovery';
import type { SanRecoveryActivities } from '../../activities/scraps/recovery';
import { MAINTENANCE_RETRY } from '../../core/activity-options';
import type { TaskQueues } from '../../core/contracts';
import type { RecoveryInput } from '../core/recovery';

function sanRecovery(queues: Pick<TaskQueues, 'jobs'>) {
  return proxyActivities<SanRecoveryActivities>({ taskQueue: queues.jobs, startToCloseTimeout: '10m', retry: MAINTENANCE_RETRY });
}

/** SAN-6 rule 3: scraps with no card and no active CARD_ANALYSIS get one. Schedule `recovery-missing-cards`. */
export async function recoverMissingCardsWorkflow(input: RecoveryInput): Promise<RecoveryReport> {
  return sanRecovery(input.queues).enqueueMissingCardAnalyses({ batchSize: input.batchSize });
}

/** SAN-6 rule 4: scraps never refined and no active SCRAP_REFINE get one. Schedule `recovery-unrefined-scraps`. */
export async function recoverUnrefinedScrapsWorkflow(input: RecoveryInput): Promise<RecoveryReport> {
  return sanRecovery(input.queues).enqueueMissingRefinements({ batchSize: input.batchSize });
}

