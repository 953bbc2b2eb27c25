/**
 * ST-3 the memo-card poller's Temporal Schedule, created idempotently at `study-cards` worker
 * start-up (manifest `ownQueues[].schedules`): every ST_POLL_INTERVAL_SECONDS, overlap SKIP (a slow
 * poll is never run twice at once), on the family's own queue, with the poll input from config.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../../config';
import { studyCardQueues, type StudyCardPollInput } from '../../domain/study/contracts';

/** Schedule ID of the poller, prefixed like the task queues. */
export function studyCardPollScheduleId(config: Config): string {
  return `${config.temporal.taskQueuePrefix}study-card-poll`;
}

/** The poll workflow's input from config (ST_POLL_*). */
export function studyCardPollInput(config: Config): StudyCardPollInput {
  return { limit: config.study.poll.limit, sourceKinds: [...config.study.poll.sourceKinds], restartGraceSeconds: config.study.poll.restartGraceSeconds };
}

/**
 * Creates the poller Schedule or, when it exists, updates its interval, queue and input to the
 * current config. Idempotent (two workers starting at once: one creates, the other updates).
 * Returns its ID; none when ST_POLL_SCHEDULE_ENABLED is false.
 */
export async function ensureStudyCardPollSchedule(client: Client, config: Config): Promise<string[]> {
  if (!config.study.poll.scheduleEnabled) return [];
  const scheduleId = studyCardPollScheduleId(config);
  const every = `${config.study.poll.intervalSeconds}s`;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'studyCardPollWorkflow',
    workflowId: `${scheduleId}-run`,
    taskQueue: studyCardQueues(config.temporal.taskQueuePrefix).studyCards,
    args: [studyCardPollInput(config)],
  };
  try {
    await client.schedule.create({ scheduleId, spec: { intervals: [{ every }] }, action, policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, action, policies: { ...prev.policies, overlap: ScheduleOverlapPolicy.SKIP } }));
  }
  return [scheduleId];
}
