/**
 * ST-3 the memo-card poller: run by its Temporal Schedule (overlap SKIP) on the family's own
 * `study-cards` queue. One activity enqueues at most `limit` ready source versions in one statement
 * (version NOT EXISTS, ON CONFLICT DO NOTHING) and lists pending jobs whose start was lost; each is
 * then started as an independent (abandoned) child workflow whose ID is the version's, with
 * REJECT_DUPLICATE: a version already started, or run before, is never started again. Each child
 * runs at `batch` priority keyed by its user for fairness (the poll itself runs at its Schedule's
 * `maintenance` priority).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, WorkflowIdReusePolicy, log, patched, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { StudyCardActivities } from '../../activities/study/cards';
import { projectionOptions } from '../../core/activity-options';
import { jobSearchAttributes } from '../../core/contracts';
import { PRIORITY_KEYS, tenantFairnessKey } from '../../core/priority';
import { studyCardExtractWorkflow } from './extract';
import type { StudyCardPollInput, StudyCardPollResult } from '../../domain/study/contracts';

/** One poll (see the module comment). Idempotent: a repeated or concurrent poll enqueues and starts nothing twice. */
export async function studyCardPollWorkflow(input: StudyCardPollInput): Promise<StudyCardPollResult> {
  const queue = workflowInfo().taskQueue;
  const acts = proxyActivities<StudyCardActivities>(projectionOptions(queue));
  const polled = await acts.pollStudyCardSources(input);
  const keyed = patched('extract-child-priority');
  const starts = [...polled.enqueued, ...polled.stale].map(async (job): Promise<number> => {
    const typedSearchAttributes = job.searchAttributes ? jobSearchAttributes(job.searchAttributes) : undefined;
    const fairnessKey = tenantFairnessKey(typedSearchAttributes);
    try {
      await startChild(studyCardExtractWorkflow, {
        workflowId: job.workflowId,
        taskQueue: job.input.queues.studyCards,
        args: [job.input],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        ...(typedSearchAttributes ? { typedSearchAttributes } : {}),
        ...(keyed ? { priority: { priorityKey: PRIORITY_KEYS.batch, ...(fairnessKey ? { fairnessKey } : {}) } } : {}),
        memo: { jobId: job.input.jobId },
      });
      return 1;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 0;
      throw err;
    }
  });
  const started = await Promise.all(starts);
  const restarted = started.slice(polled.enqueued.length).reduce((a: number, b: number) => a + b, 0);
  if (polled.enqueued.length > 0 || restarted > 0) log.info('memo-card poll', { enqueued: polled.enqueued.length, restarted });
  return { enqueued: polled.enqueued.length, restarted };
}
