/**
 * Fault script: PostgreSQL goes away in the middle of a batch and comes back; every job must end
 * COMPLETED by itself (no manual step, no recovery schedule): outages are waited out, not charged
 * to a job's attempt budget.
 *
 *   node --import tsx scripts/faults/db-outage.ts [--scraps 100] [--outage 30] [--delay 1500] [--settle 300]
 *
 * Own PostgreSQL 15 and Temporal dev server, API and workers in this process; `--scraps` scraps
 * (two jobs each) are submitted, the AI provider answers after `--delay` ms (so jobs are in flight),
 * and once a tenth of the jobs completed PostgreSQL is stopped for `--outage` seconds (fast
 * shutdown: sessions are cut) and started again on the same port and data. Then it waits up to
 * `--settle` seconds for every job to settle and prints the counts. Exit 0 only when all jobs
 * COMPLETED; 1 otherwise; 2 when the overall deadline passed. Bounded: at most
 * 2 × scraps jobs, deadline = outage + settle + 180 s.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { slowAiProvider } from '../../test/support/slow-ai';
import { intArg, jobCounts, mapLimit, runBounded, say, scrapTexts, startFaultEnv, waitForJobsSettled } from './harness';

const scraps = intArg('scraps', 100);
const outageSeconds = intArg('outage', 30);
const delayMs = intArg('delay', 1500);
const settleSeconds = intArg('settle', 300);

runBounded('db-outage', (outageSeconds + settleSeconds + 180) * 1000, async () => {
  const { pg, stack } = await startFaultEnv({
    ai: slowAiProvider({ delayMs: (n) => delayMs / 2 + ((n * 7919) % delayMs) }),
    env: { AI_ACTIVITY_CONCURRENCY: '16', LOG_LEVEL: 'error' },
  });
  const user = await stack.newUser('outage');
  const texts = scrapTexts(scraps, 'db-outage');
  say(`submitting ${scraps} scraps (${2 * scraps} jobs)`);
  await mapLimit(texts, 8, async (content) => {
    const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: user.auth, payload: { content } });
    if (res.statusCode !== 202) throw new Error(`POST /scraps answered ${res.statusCode}: ${res.body}`);
  });

  const total = 2 * scraps;
  for (;;) {
    const c = await jobCounts(stack.db);
    if ((c.COMPLETED ?? 0) >= Math.ceil(total / 10)) break;
    await sleep(200);
  }
  say(`before the outage: ${JSON.stringify(await jobCounts(stack.db))}`);
  say(`stopping PostgreSQL for ${outageSeconds} s`);
  await pg.interrupt();
  await sleep(outageSeconds * 1000);
  await pg.resume();
  say('PostgreSQL is back');

  const settled = await waitForJobsSettled(stack.db, settleSeconds * 1000);
  const counts = await jobCounts(stack.db);
  const completed = counts.COMPLETED ?? 0;
  const failed = counts.FAILED ?? 0;
  say(`result: completed=${completed} failed=${failed} total=${total}${settled ? '' : ' (not settled in time)'}`);
  if (failed > 0) {
    const causes = await stack.db.asyncJob.groupBy({ by: ['errorMessage'], where: { status: 'FAILED' }, _count: { _all: true } });
    for (const c of causes.slice(0, 5)) say(`  ${c._count._all} × ${String(c.errorMessage).slice(0, 300)}`);
  }
  return settled && completed === total;
});
