/**
 * A rolling restart of every worker process onto a new build in the middle of a burst (each new
 * process is ready before the old one gets SIGTERM and its graceful shutdown): running jobs finish,
 * none twice; workflow tasks were completed by both builds (the worker identity of each completed
 * workflow task, `<pid>@<host>`, names the process, and so its build); the recorded histories of
 * those jobs replay against the new build, and so do the checked-in histories of older code (the
 * `patched()` markers in use).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { testDataConverter } from '../support/temporal';
import { jobsOf, runBurst, type BurstPlan } from './burst';
import { randomUUID } from 'node:crypto';
import { clusterContext, duplicateRows, expectAllSucceeded, healCluster, newUser, ranTwice, runsPerWorkflow, scrapText, startScrap, type ClusterContext } from './support';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') }); // the replays below log every worker state at INFO
} catch {
  // already installed in this jest worker
}

let ctx: ClusterContext;
beforeAll(async () => {
  ctx = await clusterContext();
  await healCluster(ctx);
});
afterAll(async () => {
  await healCluster(ctx).catch(() => undefined);
  await ctx?.close();
});

/** Worker identities (`<pid>@<host>`) that completed a workflow task in `history`. */
function taskIdentities(history: unknown): string[] {
  const events = (history as { events?: { workflowTaskCompletedEventAttributes?: { identity?: string | null } | null }[] | null }).events ?? [];
  return events.flatMap((e) => (e.workflowTaskCompletedEventAttributes?.identity ? [e.workflowTaskCompletedEventAttributes.identity] : []));
}
const pidOf = (identity: string) => Number(identity.split('@')[0]);

it('finishes every job across a rolling restart onto a new build, and the histories replay', async () => {
  const build = await ctx.control.call<{ id: string; dir: string }>('/build', {});
  const workersBefore = (await ctx.control.state()).processes.filter((p) => p.kind === 'worker');
  expect(workersBefore.every((p) => p.build === 'source')).toBe(true);
  // A few jobs done entirely by the old build first, so that its workflow tasks are in the histories.
  const early = await newUser(ctx, 'cluster-early');
  const before = await Promise.all([0, 1, 2].map((i) => startScrap(ctx, early, scrapText(`early-${randomUUID()}`, i), i)));
  await expectAllSucceeded(ctx, before);
  const plan: BurstPlan = { scraps: 40, aiRuns: 10, portalLinks: 5, questions: 5 };
  let replaced: string[] = [];
  const burst = await runBurst(ctx, plan, {
    clients: 3,
    faultAfter: 0.15,
    fault: async () => void (replaced = (await ctx.control.call<{ replaced: string[] }>('/rolling-restart', { build: build.id })).replaced),
  });
  // And a few after it, done by the new build (on a loaded machine the burst may finish before the
  // new jobs worker is up).
  const after = await Promise.all([0, 1, 2].map((i) => startScrap(ctx, early, scrapText(`late-${randomUUID()}`, i), i)));
  const jobs = [...before, ...burst.jobs, ...after];
  const userIds = [early.userId, ...burst.userIds];
  expect(replaced).toHaveLength(workersBefore.length);
  const workersAfter = (await ctx.control.state()).processes.filter((p) => p.kind === 'worker');
  expect(workersAfter.map((p) => [p.spec, p.build]).sort()).toEqual(workersBefore.map((p) => [p.spec, build.id]).sort());

  await expectAllSucceeded(ctx, jobs);
  expect(ctx.badAnswers).toEqual([]);
  expect(await duplicateRows(ctx, jobs)).toEqual([]);
  const runs = await runsPerWorkflow(ctx, userIds, jobsOf(plan) + 2 * (before.length + after.length));
  expect(ranTwice(runs)).toEqual([]);

  const histories = [];
  for (const workflowId of runs.keys()) histories.push({ workflowId, history: await ctx.client.workflow.getHandle(workflowId).fetchHistory() });
  // The old processes ran the sources, the new ones the build: both completed workflow tasks.
  const pids = new Set(histories.flatMap((h) => taskIdentities(h.history)).map(pidOf));
  const byBuild = (ps: { pid?: number }[]) => ps.some((p) => p.pid !== undefined && pids.has(p.pid));
  expect({ sources: byBuild(workersBefore), build: byBuild(workersAfter) }).toEqual({ sources: true, build: true });

  const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.join(build.dir, 'workflows', 'index.js'), logger: new DefaultLogger('WARN') });
  const errors: string[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle, dataConverter: ctx.dataConverter }, histories)) if (r.error) errors.push(`${r.workflowId}: ${r.error.message}`);
  expect(errors).toEqual([]);

  const dir = path.join(__dirname, '..', 'histories');
  const recorded = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => ({ workflowId: f, history: JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as unknown }));
  for await (const r of Worker.runReplayHistories({ workflowBundle, dataConverter: testDataConverter() }, recorded)) if (r.error) errors.push(`${r.workflowId}: ${r.error.message}`);
  expect(errors).toEqual([]);
});
