/**
 * Every family's main job end to end on the production topology, started through one API process
 * and read back through the other: a scrap to its card, the day's TIL committed to GitHub (SAN-7,
 * SAN-9, SAN-10), an AI run (AR-1 … AR-3), a portal link (PO-1 … PO-4), a study question to its
 * explanation and memo cards (ST-1 … ST-5).
 */
import { randomUUID } from 'node:crypto';
import { pollUntil } from '../support/poll';
import {
  clusterContext, expectAllSucceeded, expectStatus, healCluster, newCompanyMember, newTopic, newUser, request, scrapText,
  startAiRun, startPortalLink, startScrap, startStudyQuestion, type ClusterContext,
} from './support';

let ctx: ClusterContext;
beforeAll(async () => {
  ctx = await clusterContext();
  await healCluster(ctx);
});
afterAll(() => ctx?.close());

const JOB_MS = 300_000;

describe.each([0, 1])('through API process %i (read back through the other)', (api) => {
  const other = 1 - api;

  it('a scrap becomes a card; the day’s TIL is generated and committed to GitHub', async () => {
    const user = await newUser(ctx, 'cluster-san');
    const scrap = await startScrap(ctx, user, scrapText(`families-${randomUUID()}`, api), api);
    await expectAllSucceeded(ctx, [scrap], JOB_MS);
    const scrapId = String((await ctx.db.asyncJob.findUniqueOrThrow({ where: { jobId: scrap.ids[0]! } })).targetId);
    const card = await expectStatus(ctx, 200, `/cards/${scrapId}`, { headers: user.auth, api: other });
    expect(card.title).toEqual(expect.any(String));

    const today = new Date().toISOString().slice(0, 10);
    const til = await expectStatus(ctx, 202, '/til', { body: { targetDate: today }, headers: user.auth, api });
    await expectAllSucceeded(ctx, [{ family: 'scraps', ids: [String(til.jobId)], userId: user.userId }], JOB_MS);
    const login = `cl${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    await expectStatus(ctx, 200, '/github/account', { method: 'PUT', body: { accessToken: `ghemu_${login}` }, headers: user.auth, api: other });
    await expectStatus(ctx, 200, '/github/repository', { method: 'PUT', body: { owner: login, name: 'til', directory: 'til' }, headers: user.auth, api });
    const commit = await expectStatus(ctx, 202, `/til/${String(til.summaryId)}/github-commits`, { method: 'POST', headers: user.auth, api });
    await expectAllSucceeded(ctx, [{ family: 'scraps', ids: [String(commit.jobId)], userId: user.userId }], JOB_MS);
    const commits = (await expectStatus(ctx, 200, `/til/${String(til.summaryId)}/github-commits`, { headers: user.auth, api: other })) as { commits: { status: string; commitSha: string | null }[] };
    expect(commits.commits).toEqual([expect.objectContaining({ status: 'COMPLETED', commitSha: expect.stringMatching(/^[0-9a-f]{40}$/) })]);
  });

  it('an AI run succeeds', async () => {
    const hr = await newCompanyMember(ctx);
    const run = await startAiRun(ctx, hr, 'I need an employment certificate for my visa by Friday', api);
    await expectAllSucceeded(ctx, [run], JOB_MS);
    const view = await expectStatus(ctx, 200, `/api/v1/ai-runs/${run.ids[0]}`, { headers: hr.auth, api: other });
    expect(view).toEqual(expect.objectContaining({ status: 'SUCCEEDED', attemptCount: 1 }));
  });

  it('a portal link succeeds and its summary is readable', async () => {
    const link = await startPortalLink(ctx, api, api);
    await expectAllSucceeded(ctx, [link], JOB_MS);
    const summary = await request(ctx, `/portal/link/jobs/${link.ids[0]}/summary`, { headers: link.auth!, api: other });
    expect(summary.status).toBe(200);
  });

  it('a study question gets its explanation, then memo cards from the poller', async () => {
    const user = await newUser(ctx, 'cluster-st');
    const topicId = await newTopic(ctx, user);
    const q = await startStudyQuestion(ctx, user, topicId, api, api);
    await expectAllSucceeded(ctx, [q], JOB_MS);
    const questionId = String((await ctx.db.asyncJob.findUniqueOrThrow({ where: { jobId: q.ids[0]! } })).targetId);
    const jobs = await pollUntil(
      async () => ((await expectStatus(ctx, 200, `/study/questions/${questionId}/memo-card-jobs`, { headers: user.auth, api: other })) as { jobs: { status: string }[] }).jobs,
      (js) => js.some((j) => j.status === 'completed' || j.status === 'failed' || j.status === 'skipped'),
      { describe: 'the memo-card job to finish', timeoutMs: JOB_MS, intervalMs: 1000, maxIntervalMs: 3000 },
    );
    expect(jobs[0]!.status).toBe('completed');
  });
});
