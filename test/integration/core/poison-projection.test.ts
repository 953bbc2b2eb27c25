/**
 * A job that can never finish FAILS with its cause instead of retrying forever: the AI provider
 * returns a card that PostgreSQL refuses (a NUL, a lone UTF-16 surrogate), so the projection write
 * fails deterministically; and a projection write that keeps failing for a reason nobody
 * classified is found by the stale-jobs recovery as `stuck`, failed with the last failure, and
 * re-enqueued within the retry limit.
 */
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import type { CardAnalysis, ScrapText } from '../../../src/ai/scraps/answers';
import type { AiProvider } from '../../../src/ai/types';
import { localProviderWith } from '../../support/ai-provider';
import type { RecoveryReport } from '../../../src/activities/core/recovery';
import { jobWorkflowId } from '../../../src/core/contracts';
import { PG_INDEXES, PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { pollUntil } from '../../support/poll';
import { startStack, waitForJob, type Stack } from '../../support/stack';

/** Markers in a scrap's content that make the fake provider poison its title. */
const POISON: Record<string, (title: string) => string> = {
  'poison:nul': (t) => `${t}\u0000tail`,
  'poison:lone-surrogate': (t) => `${t} \ud83d`,
  'poison:trigger': (t) => `${t} [rejected by trigger]`,
};

/** The local provider, except that marked scraps get a title PostgreSQL will not store. */
function poisoningProvider(): AiProvider {
  return localProviderWith('poisoning', async (call) => {
    if (call.op !== 'analyzeCard') return call.answer();
    const input = call.input as ScrapText;
    const analysis = (await call.answer()) as CardAnalysis;
    const marker = Object.keys(POISON).find((m) => input.content.includes(m));
    return marker ? { ...analysis, title: POISON[marker]!(analysis.title) } : analysis;
  });
}

let stack: Stack;
let user: Awaited<ReturnType<Stack['newUser']>>;
beforeAll(async () => {
  stack = await startStack({ ai: poisoningProvider() });
  user = await stack.newUser();
});
afterAll(async () => stack?.stop());

async function submit(content: string) {
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });
  expect(res.statusCode).toBe(202);
  return res.json() as { scrapId: string; analysisJobId: string; refineJobId: string };
}

/**
 * Attempts of each activity type of a workflow: of activities, as recorded by their started events;
 * of local activities (the projection writes), the attempt that ended each,
 * from its marker.
 */
async function attemptsOf(workflowId: string, activityType: string): Promise<number[]> {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Map<string, string>();
  for (const e of events) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a) scheduled.set(String(e.eventId), a.activityType?.name ?? '');
  }
  return events.flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    if (started) return scheduled.get(String(started.scheduledEventId)) === activityType ? [started.attempt ?? 0] : [];
    const marker = e.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : undefined;
    if (!data) return [];
    const local = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string; attempt?: number };
    return local.activity_type === activityType ? [local.attempt ?? 0] : [];
  });
}

/** Polls `probe` (pollUntil) until it returns a truthy value, and returns that. */
function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 45_000): Promise<T> {
  return pollUntil(probe, (v): v is T => Boolean(v), { describe: what, timeoutMs });
}

it.each([
  ['a NUL character', 'poison:nul', /PROJECTION_REJECTED.*invalid byte sequence/],
  ['a lone surrogate', 'poison:lone-surrogate', /PROJECTION_REJECTED.*(hex escape|surrogate)/],
])('a card title with %s: storeCard fails once, non-retryable, and the job FAILS with the cause', async (_label, marker, cause) => {
  const ids = await submit(`${PG_INDEXES}\n\n${marker} ${randomUUID()}`);
  const job = await waitForJob(stack, ids.analysisJobId, user.auth);
  expect(job.status).toBe('FAILED');
  expect(job.errorMessage).toMatch(cause);
  expect(await attemptsOf(jobWorkflowId('CARD_ANALYSIS', ids.scrapId), 'storeCard')).toEqual([1]);
  expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(0);
  // The other job of the scrap is unaffected.
  expect((await waitForJob(stack, ids.refineJobId, user.auth)).status).toBe('COMPLETED');
});

describe('a projection write that keeps failing for an unclassified reason', () => {
  beforeAll(async () => {
    // PL/pgSQL raise_exception (SQLSTATE P0001): neither a data nor a connection error, so retried.
    await stack.db.$executeRawUnsafe(`
      CREATE FUNCTION reject_poison_cards() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.title LIKE '%[rejected by trigger]%' THEN RAISE EXCEPTION 'card rejected by trigger'; END IF;
        RETURN NEW;
      END $$`);
    await stack.db.$executeRawUnsafe(
      'CREATE TRIGGER reject_poison_cards BEFORE INSERT ON knowledge_cards FOR EACH ROW EXECUTE FUNCTION reject_poison_cards()',
    );
  });

  it('is reported as stuck by the stale-jobs rule: run terminated, job FAILED with the last failure, then re-runnable', async () => {
    const ids = await submit(`${PG_PARTIAL}\n\npoison:trigger ${randomUUID()}`);
    const wf = stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId));
    await until('storeCard retried with a failure', async () => {
      const pending = (await wf.describe()).raw.pendingActivities ?? [];
      return pending.some((a) => a.activityType?.name === 'storeCard' && (a.attempt ?? 0) >= 3 && a.lastFailure?.message);
    });
    // Older than the PROCESSING bound (the run itself cannot be back-dated, the row can).
    const at = new Date(Date.now() - 61 * 60_000);
    await stack.db.asyncJob.update({ where: { jobId: ids.analysisJobId }, data: { startedAt: at, updatedAt: at } });

    const report = (await stack.client.workflow.execute('recoverStaleJobsWorkflow', {
      taskQueue: stack.queues.jobs,
      workflowId: `recovery-test-stuck-${randomUUID()}`,
      args: [{ queues: stack.queues, pendingStaleMinutes: 30, processingStaleMinutes: 60, maxRetries: 0, batchSize: 100, stuckAttempts: 2 }],
    })) as RecoveryReport;
    const item = report.items.find((i) => i.jobId === ids.analysisJobId);
    expect(item?.actions).toEqual(['stuck', 'terminated', 'marked-failed', 'limit-reached']);
    expect(item?.detail).toContain('card rejected by trigger');

    expect((await wf.describe()).status.name).toBe('TERMINATED');
    const row = await stack.db.asyncJob.findUniqueOrThrow({ where: { jobId: ids.analysisJobId } });
    expect(row.status).toBe('FAILED');
    expect(row.errorMessage).toMatch(/^stuck: storeCard attempt \d+: .*card rejected by trigger/);

    // Once the cause is gone, the usual SAN-6 retry finishes the job.
    await stack.db.$executeRawUnsafe('DROP TRIGGER reject_poison_cards ON knowledge_cards');
    const retry = await stack.app.inject({ method: 'POST', url: `/async-jobs/${ids.analysisJobId}/retry`, headers: user.auth });
    expect(retry.statusCode).toBe(202);
    expect((await waitForJob(stack, ids.analysisJobId, user.auth)).status).toBe('COMPLETED');
    expect(await stack.db.knowledgeCard.count({ where: { scrapId: ids.scrapId } })).toBe(1);
  });

  it('a running job whose activity is merely slow (attempt 1) is left running', async () => {
    await stack.stopAiWorker(); // analyzeScrap waits for a worker: attempt 1, no failure
    try {
      const ids = await submit(`${SOURDOUGH}\n\n${randomUUID()}`);
      const wf = stack.client.workflow.getHandle(jobWorkflowId('CARD_ANALYSIS', ids.scrapId));
      const SCHEDULED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;
      await until('analyzeScrap scheduled', async () =>
        ((await wf.describe()).raw.pendingActivities ?? []).some((a) => a.activityType?.name === 'analyzeScrap' && a.state === SCHEDULED));
      const at = new Date(Date.now() - 61 * 60_000);
      await stack.db.asyncJob.update({ where: { jobId: ids.analysisJobId }, data: { startedAt: at, updatedAt: at } });
      const report = (await stack.client.workflow.execute('recoverStaleJobsWorkflow', {
        taskQueue: stack.queues.jobs,
        workflowId: `recovery-test-slow-${randomUUID()}`,
        args: [{ queues: stack.queues, pendingStaleMinutes: 30, processingStaleMinutes: 60, maxRetries: 3, batchSize: 100, stuckAttempts: 2 }],
      })) as RecoveryReport;
      expect(report.items.find((i) => i.jobId === ids.analysisJobId)?.actions).toEqual(['left-running']);
    } finally {
      await stack.startAiWorker();
    }
  });
});
