/**
 * Fault script: a burst of `POST /scraps` builds a backlog on the `jobs` task queue while the
 * SAN-4 reconciler schedule runs; the reconciler must not multiply work. Every job should have
 * exactly one Temporal run: runs = jobs.
 *
 *   node --import tsx scripts/faults/burst.ts [--scraps 1000] [--clients 50] [--interval 60] [--grace 30] [--deadline 1200]
 *
 * Own PostgreSQL 15 and Temporal dev server, the API listening on a loopback port and the `jobs`
 * and `ai` workers in this process, the reconcile schedule every `--interval` s with a grace of
 * `--grace` s (the production defaults). `--scraps` scraps (two jobs each) are posted over HTTP by
 * `--clients` concurrent clients; then it waits for every job to settle, pauses the schedule, waits
 * for open runs to close and counts job workflow runs through visibility (`JobType IS NOT NULL`,
 * this server holds nothing else). Prints jobs, runs, the reconciler's reports, and exits 1 when
 * runs > jobs or a job did not complete, 2 on the deadline. Note the dev server's SQLite limit
 * (docs: bursts around 1,000 concurrent workflows hit its 5 s shard I/O timeout): start with
 * `--scraps 200`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReconcileReport } from '../../src/activities/core/jobs';
import { scheduleDecl } from '../../src/families';
import { ensureSchedules } from '../../src/workers/schedules';
import { intArg, jobCounts, mapLimit, runBounded, say, scrapTexts, startFaultEnv, waitForJobsSettled } from './harness';

const scraps = intArg('scraps', 1000);
const clients = intArg('clients', 50);
const intervalSeconds = intArg('interval', 60);
const graceSeconds = intArg('grace', 30);
const deadlineSeconds = intArg('deadline', 1200);

runBounded('burst', deadlineSeconds * 1000, async () => {
  const { stack } = await startFaultEnv({ env: { LOG_LEVEL: 'error', RECONCILE_GRACE_SECONDS: String(graceSeconds), RECONCILE_INTERVAL_SECONDS: String(intervalSeconds) } });
  const { client, db } = stack;
  const config = { ...stack.config, reconcile: { ...stack.config.reconcile, schedulesEnabled: true } };
  const [scheduleId] = await ensureSchedules(client, config, [scheduleDecl('reconcile-pending-jobs')]);
  if (!scheduleId) throw new Error('the reconcile schedule was not created');
  const schedule = client.schedule.getHandle(scheduleId);
  say(`reconcile schedule ${scheduleId}: every ${intervalSeconds} s, grace ${graceSeconds} s`);

  const address = await stack.app.listen({ host: '127.0.0.1', port: 0 });
  const user = await stack.newUser('burst');
  const statuses = new Map<number, number>();
  const t0 = Date.now();
  say(`posting ${scraps} scraps at ${clients} clients to ${address}`);
  await mapLimit(scrapTexts(scraps, 'burst'), clients, async (content) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(`${address}/scraps`, {
          method: 'POST',
          headers: { ...user.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ content }),
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        return;
      } catch (err) {
        if (attempt >= 3) throw err; // a connection reset under load: the client retries, like a real one
        await sleep(500 * attempt);
      }
    }
  });
  say(`posted in ${((Date.now() - t0) / 1000).toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);

  const settled = await waitForJobsSettled(db, Math.max(60_000, deadlineSeconds * 1000 - (Date.now() - t0) - 120_000), 10_000);
  await schedule.pause('burst script: counting');
  // Let in-flight reconcile passes and late runs close before counting.
  for (let i = 0; i < 120; i++) {
    if ((await client.workflow.count('ExecutionStatus = "Running"')).count === 0) break;
    await sleep(1000);
  }
  await sleep(2000); // visibility is eventually consistent

  const jobs = await db.asyncJob.count();
  const counts = await jobCounts(db);
  const runs = (await client.workflow.count('JobType IS NOT NULL')).count;
  const skipped: string[] = [];
  const reports: ReconcileReport[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'reconcilePendingJobsWorkflow'` })) {
    const r = await client.workflow.getHandle(wf.workflowId, wf.runId).result().catch(() => undefined);
    if (r) reports.push(r as ReconcileReport);
  }
  for await (const wf of client.workflow.list({ query: 'JobType IS NOT NULL AND ExecutionStatus = "Completed"' })) {
    const r = (await client.workflow.getHandle(wf.workflowId, wf.runId).result().catch(() => undefined)) as { status?: string } | undefined;
    if (r?.status === 'SKIPPED') skipped.push(wf.workflowId);
    if (skipped.length >= 1000) break;
  }
  const started = reports.reduce((n, r) => n + r.started, 0);
  say(`reconcile passes: ${reports.length}, started by the reconciler: ${started}, reports: ${JSON.stringify(reports.slice(0, 10))}`);
  say(`result: jobs=${jobs} runs=${runs} skipped-runs=${skipped.length} job statuses ${JSON.stringify(counts)}${settled ? '' : ' (not settled in time)'}`);
  return settled && runs === jobs && (counts.COMPLETED ?? 0) === jobs;
});
