/**
 * kill -9 of one Temporal node in the middle of a mixed burst over every family: its history
 * shards move to the other node, every job still reaches its terminal state, none runs twice
 * (projection rows and workflow runs counted), and the API answers 503 + Retry-After, never 500,
 * while the node is gone. The node then starts again and rejoins.
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

it('loses no job when a Temporal node is SIGKILLed mid-burst (≥ 200 jobs over all families)', async () => {
  const plan: BurstPlan = { scraps: 70, aiRuns: 30, portalLinks: 15, questions: 20 };
  expect(jobsOf(plan)).toBeGreaterThanOrEqual(200);
  let killed: unknown;
  const { jobs, userIds } = await runBurst(ctx, plan, { faultAfter: 0.3, fault: async () => void (killed = await ctx.control.call('/kill', { name: 'temporal-1' })) });
  expect(killed).toEqual(expect.objectContaining({ signal: 'SIGKILL' }));
  const node = (await ctx.control.state()).processes.find((p) => p.name === 'temporal-1');
  expect(node?.up).toBe(false); // the rest of the burst and every job below ran on temporal-2 alone

  const counts = await expectAllSucceeded(ctx, jobs);
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(jobsOf(plan));
  expect(ctx.badAnswers).toEqual([]);
  expect(await duplicateRows(ctx, jobs)).toEqual([]);
  expect(ranTwice(await runsPerWorkflow(ctx, userIds, jobsOf(plan)))).toEqual([]);

  await ctx.control.call('/start', { name: 'temporal-1' });
  expect((await ctx.control.state()).processes.find((p) => p.name === 'temporal-1')?.up).toBe(true);
});
