/**
 * kill -9 of one API process in the middle of a burst: clients retrying on the other API process
 * lose nothing (a retried POST is answered from the same rows: the scrap's content hash, the
 * Idempotency-Key), every job completes once, and no answer is a 500.
 */
import { jobsOf, runBurst, type BurstPlan } from './burst';
import { clusterContext, duplicateRows, expectAllSucceeded, healCluster, ranTwice, runsPerWorkflow, type ClusterContext } from './support';

let ctx: ClusterContext;
beforeAll(async () => {
  ctx = await clusterContext();
  await healCluster(ctx);
});
afterAll(async () => {
  await healCluster(ctx).catch(() => undefined);
  await ctx?.close();
});

it('loses nothing when an API process is SIGKILLed mid-burst', async () => {
  const plan: BurstPlan = { scraps: 40, aiRuns: 15, portalLinks: 8, questions: 8 };
  const { jobs, userIds } = await runBurst(ctx, plan, { faultAfter: 0.3, fault: async () => void (await ctx.control.call('/kill', { name: 'api-1' })) });
  expect((await ctx.control.state()).processes.find((p) => p.name === 'api-1')?.up).toBe(false);
  expect(jobs.flatMap((j) => j.ids)).toHaveLength(jobsOf(plan));
  await expectAllSucceeded(ctx, jobs);
  expect(ctx.badAnswers).toEqual([]);
  expect(await duplicateRows(ctx, jobs)).toEqual([]);
  expect(ranTwice(await runsPerWorkflow(ctx, userIds, jobsOf(plan)))).toEqual([]);
});
