/**
 * (e) The TIL → GitHub commit chain per user: POST /til … TIL_GENERATION COMPLETED, then POST
 * /til/{id}/github-commits … TIL_GITHUB_COMMIT COMPLETED on the local GitHub REST emulator through
 * the real Octokit adapter, p50/p95, against `noopWorkflow` start → result. On the cluster topology
 * the users sign in to the cluster's emulator with self-service tokens (`ghemu_<login>`), whose
 * request log stays in the cluster's process.
 */
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../../src/auth/tokens';
import { selfServiceToken } from '../../../test/support/github-emulator';
import { elapsed, say } from '../lifecycle';
import { jobWorkflowId } from '../../../src/core/contracts';
import { drain, ms, pcts, pool, ratio } from '../measure';
import { createApiClient, ok } from '../../lib/api-client';
import { follow, scrapFamily, type BenchFamily } from '../families';
import { phaseReport, type PhaseSample } from '../phases';
import type { BenchSection } from '../section';

/** Section (e). */
export const sectionE: BenchSection = {
  letter: 'e',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack, runId, noop } = ctx;
    const { apiUrl, db, github, cluster } = stack;
    say();
    say(`## (e) TIL → GitHub commit chain: POST /til … TIL_GENERATION COMPLETED, POST /til/{id}/github-commits … TIL_GITHUB_COMMIT COMPLETED, ${sizes.chains} users ${elapsed()}`);
    await drain(db, '(e) start');
    const today = new Date().toISOString().slice(0, 10);
    /** Follows async job `jobId` of `jobs`' user to COMPLETED by long polling; throws when it FAILED. */
    const waitJob = async (jobs: BenchFamily, jobId: string) => {
      const { status } = await follow(jobs, jobId, 'long');
      if (status === 'FAILED') throw new Error(`(e) job ${jobId} FAILED`);
    };
    const chainLat: number[] = [];
    const tilLat: number[] = [];
    const commitLat: number[] = [];
    const tilSamples: PhaseSample[] = [];
    const commitSamples: PhaseSample[] = [];
    const ghRoutes: string[] = [];
    for (let i = 0; i < sizes.chains; i++) {
      const user = await createUserWithToken(db, `bench-til-${runId}-${i}`);
      const api = createApiClient(apiUrl, user.token);
      const jobs = scrapFamily(ctx, api);
      const login = `bench-${runId}-${i}`;
      const ghToken = cluster ? selfServiceToken(login) : github.addUser(login);
      if (!cluster) github.addRepo(login, 'til');
      await ok('PUT /github/account', api.PUT('/github/account', { body: { accessToken: ghToken } }));
      await ok('PUT /github/repository', api.PUT('/github/repository', { body: { owner: login, name: 'til', directory: 'til' } }));
      for (let k = 0; k < 3; k++) await waitJob(jobs, (await jobs.create(i * 3 + k, `e-${i}`))[0]!);
      const t = performance.now();
      const tilAt = Date.now();
      const til = await ok('POST /til', api.POST('/til', { body: { targetDate: today } }));
      await waitJob(jobs, til.jobId);
      const t1 = performance.now();
      const commitAt = Date.now();
      tilSamples.push({ workflowId: jobWorkflowId('TIL_GENERATION', til.summaryId), submittedAt: tilAt, seenAt: commitAt });
      const ghBefore = github.log.length;
      const commit = await ok('POST /til/{summaryId}/github-commits', api.POST('/til/{summaryId}/github-commits', { params: { path: { summaryId: til.summaryId } } }));
      await waitJob(jobs, commit.jobId);
      const t2 = performance.now();
      if (!cluster) ghRoutes.push(github.log.slice(ghBefore).map((r) => r.route).join(', '));
      commitSamples.push({ workflowId: jobWorkflowId('TIL_GITHUB_COMMIT', commit.commitId), submittedAt: commitAt, seenAt: Date.now() });
      tilLat.push(t1 - t);
      commitLat.push(t2 - t1);
      chainLat.push(t2 - t);
    }
    const chainBase: number[] = [];
    const noopSamples: PhaseSample[] = [];
    await pool(Math.max(8, sizes.chains * 2), 4, async () => {
      const t = performance.now();
      const submittedAt = Date.now();
      const h = await noop.start();
      await h.result();
      chainBase.push(performance.now() - t);
      noopSamples.push({ workflowId: h.workflowId, submittedAt, seenAt: Date.now() });
    });
    const chain = pcts(chainLat);
    const chainB = pcts(chainBase);
    say(`TIL_GENERATION: p50 ${ms(pcts(tilLat).p50)}; TIL_GITHUB_COMMIT (API checks through GitHub + job): p50 ${ms(pcts(commitLat).p50)}`);
    say(`chain POST /til → commit COMPLETED: p50 ${ms(chain.p50)}, p95 ${ms(chain.p95)} (n=${chain.n})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(chainB.p50)} (n=${chainB.n}); ratio p50 ${ratio(chain.p50 / chainB.p50)}`);
    if (!cluster) say(`GitHub emulator: ${github.requests('PUT /repos/{o}/{r}/contents/{path}')} contents PUTs for ${sizes.chains} commits; one commit's requests (API check + workflow): ${ghRoutes[0] ?? 'n/a'}`);
    for (const l of await phaseReport(stack.client, 'TIL_GENERATION', tilSamples)) say(l);
    for (const l of await phaseReport(stack.client, 'TIL_GITHUB_COMMIT', commitSamples)) say(l);
    for (const l of await phaseReport(stack.client, 'noopWorkflow', noopSamples.slice(0, 20))) say(l);
    return [{ measure: '(e) POST /til → TIL committed to GitHub, p50', subject: ms(chain.p50), baseline: `${ms(chainB.p50)} noopWorkflow start → result`, ratio: ratio(chain.p50 / chainB.p50) }];
  },
};
