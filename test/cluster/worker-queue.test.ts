/**
 * kill -9 of every worker process of one task queue (`ai`, two processes) while its jobs run: the
 * jobs wait (their activities time out and are retried), and finish once a worker runs again.
 */
import { pollUntil } from '../support/poll';
import { jobsOf, runBurst, type BurstPlan } from './burst';
import { clusterContext, duplicateRows, expectAllSucceeded, healCluster, projectionStatuses, ranTwice, runsPerWorkflow, type ClusterContext } from './support';

let ctx: ClusterContext;
let extra: string | undefined;
beforeAll(async () => {
  ctx = await clusterContext();
  await healCluster(ctx);
});
afterAll(async () => {
  if (extra) await ctx.control.call('/remove-worker', { name: extra }).catch(() => undefined);
  await healCluster(ctx).catch(() => undefined);
  await ctx?.close();
});

it('finishes the jobs of a queue whose every worker was SIGKILLed, once one starts again', async () => {
  extra = ((await ctx.control.call('/add-worker', { spec: 'worker-ai' })) as { name: string }).name;
  const aiWorkers = (await ctx.control.state()).processes.filter((p) => p.spec === 'worker-ai').map((p) => p.name);
  expect(aiWorkers).toHaveLength(2);
  const plan: BurstPlan = { scraps: 30, aiRuns: 0, portalLinks: 0, questions: 10 };
  const { jobs, userIds } = await runBurst(ctx, plan, {
    faultAfter: 0.2,
    fault: async () => void (await Promise.all(aiWorkers.map((name) => ctx.control.call('/kill', { name })))),
  });
  // With no `ai` worker, an analysis cannot finish: at least one job is still open.
  const open = await projectionStatuses(ctx, jobs);
  expect([...open.values()].some((s) => s === 'PENDING' || s === 'PROCESSING')).toBe(true);
  expect((await ctx.control.state()).processes.filter((p) => p.spec === 'worker-ai').every((p) => !p.up)).toBe(true);

  await ctx.control.call('/start', { name: aiWorkers[0]! });
  await pollUntil(() => ctx.control.state(), (s) => s.processes.some((p) => p.name === aiWorkers[0] && p.up), { describe: 'the ai worker to run again', timeoutMs: 240_000 });
  await expectAllSucceeded(ctx, jobs);
  expect(ctx.badAnswers).toEqual([]);
  expect(await duplicateRows(ctx, jobs)).toEqual([]);
  expect(ranTwice(await runsPerWorkflow(ctx, userIds, jobsOf(plan)))).toEqual([]);
});
