/**
 * Temporal's PostgreSQL stopped for at least 20 s in the middle of a burst: both nodes wait it out,
 * and every job completes once it is back, none twice; the API never answers 500 meanwhile. A
 * create whose workflow cannot be started while it is down answers 503 WORKFLOW_START_UNAVAILABLE
 * with Retry-After and keeps nothing, and the client's retry with the same Idempotency-Key succeeds:
 * a portal link made during the outage keeps its password (it is in the retried request).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SEED_STUDENTS } from '../support/portal-seed';
import { jobsOf, runBurst, type BurstPlan } from './burst';
import { clusterContext, duplicateRows, expectAllSucceeded, expectStatus, healCluster, newUser, ranTwice, runsPerWorkflow, type ClusterContext, type StartedJob } from './support';

let ctx: ClusterContext;
beforeAll(async () => {
  ctx = await clusterContext();
  await healCluster(ctx);
});
afterAll(async () => {
  await healCluster(ctx).catch(() => undefined);
  await ctx?.close();
});

/** The outage's length: the fault itself, not a wait for a state. */
const OUTAGE_MS = 20_000;

it('completes every job after an outage of Temporal’s PostgreSQL; a create during it answers 503 and its retry succeeds', async () => {
  const plan: BurstPlan = { scraps: 30, aiRuns: 10, portalLinks: 5, questions: 5 };
  const user = await newUser(ctx, 'cluster-po-outage');
  const student = Object.values(SEED_STUDENTS)[0]!;
  const link = { method: 'POST', headers: { ...user.auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify({ portalType: 'suwon', studentId: student.studentId, password: student.password }) };
  let during: { status: number; code?: string; retryAfter: string | null } | undefined;
  let linksBefore = -1;
  const { jobs, userIds } = await runBurst(ctx, plan, {
    faultAfter: 0.3,
    fault: async () => {
      await ctx.control.call('/temporal-postgres/stop', {});
      // One link sent while it is down, answered without a retry: its start cannot happen.
      const probe = (async () => {
        const res = await fetch(`${ctx.apis[0]}/portal/link`, { ...link, signal: AbortSignal.timeout(120_000) });
        const problem = (await res.json()) as { code?: string };
        during = { status: res.status, ...(problem.code ? { code: problem.code } : {}), retryAfter: res.headers.get('retry-after') };
        linksBefore = await ctx.db.portalLinkJob.count({ where: { userId: user.userId } });
      })();
      await Promise.all([sleep(OUTAGE_MS), probe]);
      await ctx.control.call('/temporal-postgres/start', {});
    },
  });
  expect(during).toEqual({ status: 503, code: 'WORKFLOW_START_UNAVAILABLE', retryAfter: expect.stringMatching(/^\d+$/) });
  expect(linksBefore).toBe(0);
  // The client's retry: the same request with the same Idempotency-Key.
  const retried = await expectStatus(ctx, 202, '/portal/link', { body: JSON.parse(link.body) as object, headers: link.headers });
  const all: StartedJob[] = [...jobs, { family: 'portal', ids: [String(retried.jobId)], userId: user.userId }];

  await expectAllSucceeded(ctx, all);
  expect(ctx.badAnswers).toEqual([]);
  expect(await duplicateRows(ctx, all)).toEqual([]);
  expect(ranTwice(await runsPerWorkflow(ctx, [...userIds, user.userId], jobsOf(plan) + 1))).toEqual([]);
  expect((await ctx.control.state()).processes.filter((p) => p.kind === 'temporal').every((p) => p.up)).toBe(true);
});
