/**
 * (c) GET /async-jobs/{id} requests per second, 32 connections, against GET /health on the same
 * connections. Reads the jobs of (b); without (b) it first submits scraps of its own.
 */
import { scrapFamily } from '../families';
import { elapsed, say } from '../lifecycle';
import { compareWithHealth } from '../load';
import { drain, pool, rate, ratio } from '../measure';
import { READ_CONNECTIONS } from '../options';
import type { BenchSection, StackContext } from '../section';

/** `n` scraps submitted (concurrency 8) and drained: their 2n job ids. */
async function seedJobs(ctx: StackContext, n: number): Promise<string[]> {
  const ids: string[] = [];
  const scraps = scrapFamily(ctx);
  await pool(n, 8, async (i) => {
    ids.push(...(await scraps.create(i, 'c')));
  });
  await drain(ctx.stack.db, '(c) seed');
  return ids;
}

/** Section (c). */
export const sectionC: BenchSection = {
  letter: 'c',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack, headers, shared } = ctx;
    if (shared.jobIds.length === 0) shared.jobIds.push(...(await seedJobs(ctx, sizes.latencyScraps / 2)));
    say();
    say(`## (c) GET /async-jobs/{id} req/s, ${READ_CONNECTIONS} connections, ${sizes.readSeconds} s each, in halves ordered health, jobs, jobs, health ${elapsed()}`);
    const half = Math.max(1, Math.round(sizes.readSeconds / 2));
    const readSpec = { url: stack.apiUrl, method: 'GET' as const, headers, connections: READ_CONNECTIONS };
    const jobPaths = shared.jobIds.map((id) => `/async-jobs/${id}`);
    const { subjectRate: jobsRate, healthRate } = await compareWithHealth({ ...readSpec, paths: jobPaths }, { ...readSpec, paths: ['/health'] }, half, 'jobs');
    say(`GET /async-jobs/{id}: ${rate(jobsRate)}; GET /health: ${rate(healthRate)}; ratio ${ratio(jobsRate / healthRate)}`);
    return [
      {
        measure: `(c) GET /async-jobs/{id} req/s, ${READ_CONNECTIONS} connections`,
        subject: rate(jobsRate),
        baseline: `${rate(healthRate)} GET /health`,
        ratio: ratio(jobsRate / healthRate),
      },
    ];
  },
};
