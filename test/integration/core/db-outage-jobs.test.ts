/**
 * A PostgreSQL outage in the middle of a batch is waited out, not charged to the jobs: every job
 * completes by itself and no AI activity spends a second attempt on it. Its own PostgreSQL server
 * (this file stops and restarts it), the shared Temporal dev server. The long version with 100
 * scraps and a 30 s outage is `scripts/faults/db-outage.ts`.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { jobWorkflowId } from '../../../src/core/contracts';
import { PG_PARTIAL } from '../../fixtures/texts';
import { pollUntil } from '../../support/poll';
import { startPostgres, type TestPostgres } from '../../support/postgres';
import { slowAiProvider } from '../../support/slow-ai';
import { startStack, type Stack } from '../../support/stack';

const SCRAPS = 8;
const OUTAGE_MS = 8000;

let pg: TestPostgres;
let stack: Stack;
beforeAll(async () => {
  pg = await startPostgres();
  // AI answers in 1-2 s, 4 at a time: the batch takes several seconds, so the outage hits jobs in flight.
  stack = await startStack({ pgAdminUrl: pg.adminUrl, ai: slowAiProvider({ delayMs: (n) => 1000 + ((n * 389) % 1000) }), env: { AI_ACTIVITY_CONCURRENCY: '4' } });
});
afterAll(async () => {
  await pg?.resume().catch(() => undefined);
  await stack?.stop();
  await pg?.stop();
});

async function counts(): Promise<Record<string, number>> {
  const rows = await stack.db.asyncJob.groupBy({ by: ['status'], _count: { _all: true } });
  return Object.fromEntries(rows.map((r) => [r.status, r._count._all]));
}

/** Attempt numbers of every started activity of `activityType` in the workflow's history. */
async function attempts(workflowId: string, activityType: string): Promise<number[]> {
  const events = (await stack.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const types = new Map(events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name]));
  return events
    .filter((e) => e.activityTaskStartedEventAttributes && types.get(String(e.activityTaskStartedEventAttributes.scheduledEventId)) === activityType)
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
}

it('every job of a batch completes after an 8 s outage, with no AI attempt spent on it', async () => {
  const user = await stack.newUser();
  const ids: { scrapId: string }[] = [];
  for (let i = 0; i < SCRAPS; i++) {
    const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content: `${PG_PARTIAL}\n\n${i} ${randomUUID()}` } });
    expect(res.statusCode).toBe(202);
    ids.push(res.json());
  }
  const total = 2 * SCRAPS;
  await pollUntil(counts, (c) => (c.COMPLETED ?? 0) >= 2, { describe: 'two jobs completed before the outage' });
  const before = await counts();
  expect(before.COMPLETED ?? 0).toBeLessThan(total); // the outage hits work in flight

  await pg.interrupt();
  await sleep(OUTAGE_MS); // the outage itself (fault injection), not a wait for a state
  await pg.resume();

  await pollUntil(counts, (c) => (c.COMPLETED ?? 0) + (c.FAILED ?? 0) === total, { describe: 'every job settled', timeoutMs: 90_000 });
  expect(await counts()).toEqual({ COMPLETED: total });
  for (const { scrapId } of ids) {
    expect(await attempts(jobWorkflowId('CARD_ANALYSIS', scrapId), 'analyzeScrap')).toEqual([1]);
    expect(await attempts(jobWorkflowId('SCRAP_REFINE', scrapId), 'refineScrap')).toEqual([1]);
  }
});
