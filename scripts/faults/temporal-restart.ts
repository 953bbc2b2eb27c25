/**
 * Fault script: the Temporal server stops in the middle of a batch and comes back on the same port
 * and persistence; workers and clients reconnect by themselves and every job ends COMPLETED.
 *
 *   node --import tsx scripts/faults/temporal-restart.ts [--scraps 50] [--down 23] [--delay 1500] [--settle 240]
 *
 * Own PostgreSQL 15 and Temporal dev server (SQLite file in a temp dir), API and workers in this
 * process; `--scraps` scraps (two jobs each), the AI provider answers after about `--delay` ms, and
 * once a tenth of the jobs completed the dev server is stopped (SIGTERM to its process group) for
 * `--down` seconds, then started again with the same SQLite file. Waits up to `--settle` seconds
 * and prints the counts and the number of runs per job workflow. Exit 0 only when all jobs
 * COMPLETED; 1 otherwise; 2 on the overall deadline (down + settle + 180 s).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { slowAiProvider } from '../../test/support/slow-ai';
import { intArg, jobCounts, mapLimit, runBounded, say, scrapTexts, startFaultEnv, waitForJobsSettled } from './harness';

const scraps = intArg('scraps', 50);
const downSeconds = intArg('down', 23);
const delayMs = intArg('delay', 1500);
const settleSeconds = intArg('settle', 240);

runBounded('temporal-restart', (downSeconds + settleSeconds + 180) * 1000, async () => {
  const { temporal, stack } = await startFaultEnv({
    ai: slowAiProvider({ delayMs: (n) => delayMs / 2 + ((n * 7919) % delayMs) }),
    env: { AI_ACTIVITY_CONCURRENCY: '16', LOG_LEVEL: 'error' },
  });
  const user = await stack.newUser('temporal-restart');
  const total = 2 * scraps;
  say(`submitting ${scraps} scraps (${total} jobs)`);
  await mapLimit(scrapTexts(scraps, 'temporal-restart'), 8, async (content) => {
    const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });
    if (res.statusCode !== 202) throw new Error(`POST /scraps answered ${res.statusCode}: ${res.body}`);
  });
  for (;;) {
    if (((await jobCounts(stack.db)).COMPLETED ?? 0) >= Math.ceil(total / 10)) break;
    await sleep(200);
  }
  say(`before the restart: ${JSON.stringify(await jobCounts(stack.db))}`);
  say(`stopping Temporal for ${downSeconds} s`);
  await temporal.stop();
  await sleep(downSeconds * 1000);
  await temporal.start();
  say('Temporal is back');

  const settled = await waitForJobsSettled(stack.db, settleSeconds * 1000);
  const counts = await jobCounts(stack.db);
  const completed = counts.COMPLETED ?? 0;
  let runs = 0;
  for await (const wf of stack.client.workflow.list({ query: `TaskQueue = '${stack.queues.jobs}' AND JobType IS NOT NULL` })) {
    if (wf.workflowId) runs += 1;
  }
  say(`result: completed=${completed} failed=${counts.FAILED ?? 0} total=${total} job-workflow runs=${runs}${settled ? '' : ' (not settled in time)'}`);
  if ((counts.FAILED ?? 0) > 0) {
    const causes = await stack.db.asyncJob.groupBy({ by: ['errorMessage'], where: { status: 'FAILED' }, _count: { _all: true } });
    for (const c of causes.slice(0, 5)) say(`  ${c._count._all} × ${String(c.errorMessage).slice(0, 300)}`);
  }
  return settled && completed === total;
});
