/**
 * AR-7/PO-1 housekeeping on the real Temporal server and PostgreSQL: the purge-idempotency-records
 * Schedule is created idempotently with its configured interval, and a triggered run (on the
 * `maintenance` worker) deletes the expired records and keeps the live ones.
 */
import { randomUUID } from 'node:crypto';
import { claimIdempotencyKey, idempotencyKeyHash } from '../../../src/core/idempotency';
import { scheduleDecl } from '../../../src/families';
import { ensureSchedules } from '../../../src/workers/schedules';
import { pollUntil } from '../../support/poll';
import { startStack, type Stack } from '../../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ aiWorker: false, aiRunsWorker: false, env: { IDEMPOTENCY_PURGE_INTERVAL_MINUTES: '720' } });
});
afterAll(async () => stack?.stop());

it('the purge Schedule exists once, runs on the maintenance queue and deletes only expired records', async () => {
  const scopeId = randomUUID();
  const longAgo = new Date(Date.now() - 7 * 24 * 3_600_000);
  for (let i = 0; i < 3; i++) {
    await claimIdempotencyKey(stack.db, { scopeId, operation: 'scratch.purge', key: `old-${i}`, request: { i }, ttlMs: 60_000, now: longAgo });
  }
  await claimIdempotencyKey(stack.db, { scopeId, operation: 'scratch.purge', key: 'live', request: {}, ttlMs: 3_600_000 });

  const config = { ...stack.config, reconcile: { ...stack.config.reconcile, schedulesEnabled: true } };
  const [id] = await ensureSchedules(stack.client, config, [scheduleDecl('purge-idempotency-records')]);
  expect(id).toBe(`${config.temporal.taskQueuePrefix}purge-idempotency-records`);
  expect(await ensureSchedules(stack.client, config, [scheduleDecl('purge-idempotency-records')])).toEqual([id]);
  const handle = stack.client.schedule.getHandle(id!);
  try {
    const described = await handle.describe();
    expect(described.spec.intervals?.[0]?.every).toBe(720 * 60_000);
    expect(described.action).toMatchObject({ workflowType: 'purgeIdempotencyRecordsWorkflow', taskQueue: `${stack.config.temporal.taskQueuePrefix}maintenance` });
    await handle.trigger();
    const wfId = await pollUntil(
      async () => (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId,
      (v): v is string => v !== undefined,
      { describe: 'the triggered purge run', timeoutMs: 20_000 },
    );
    const report = (await stack.client.workflow.getHandle(wfId).result()) as { deleted: number };
    expect(report.deleted).toBeGreaterThanOrEqual(3);
    const left = await stack.db.idempotencyRecord.findMany({ where: { scopeId } });
    expect(left.map((r) => r.keyHash)).toEqual([idempotencyKeyHash('live')]);
  } finally {
    await handle.delete();
  }
});
