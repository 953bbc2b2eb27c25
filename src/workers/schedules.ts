/** The manifests' Schedules, created or updated when the worker process serving their queue starts. */
import type { Client } from '@temporalio/client';
import { ownTaskQueue, taskQueues } from '../core/contracts';
import { ensureSchedule } from '../core/schedules';
import type { Config, ScheduleDecl } from '../families';

/** Deployed ID of Schedule `name`: `<TEMPORAL_TASK_QUEUE_PREFIX><name>`. */
export function scheduleId(config: Config, name: string): string {
  return `${config.temporal.taskQueuePrefix}${name}`;
}

/**
 * Creates each of `decls` or updates it to the current config (interval, queue, input, policies),
 * skipping all when SCHEDULES_ENABLED is off and each whose own switch is off. Idempotent.
 * Returns the IDs of the Schedules it ensured, in order.
 */
export async function ensureSchedules(client: Client, config: Config, decls: readonly ScheduleDecl[]): Promise<string[]> {
  if (!config.reconcile.schedulesEnabled) return [];
  const prefix = config.temporal.taskQueuePrefix;
  const ids: string[] = [];
  for (const s of decls) {
    if (s.enabled && !s.enabled(config)) continue;
    ids.push(
      await ensureSchedule(client, {
        scheduleId: scheduleId(config, s.name),
        every: s.every(config),
        workflowType: s.workflow,
        taskQueue: ownTaskQueue(s.queue, prefix),
        args: s.input(config, taskQueues(prefix)),
        ...(s.catchupWindow ? { catchupWindow: s.catchupWindow } : {}),
      }),
    );
  }
  return ids;
}
