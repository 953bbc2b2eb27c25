/**
 * (q) Fairness between tenants: tenant B's 20 scraps (POST /scraps → CARD_ANALYSIS COMPLETED,
 * GET /async-jobs long polls) on an idle system, then submitted right after tenant A flooded the
 * service with `sizes.fairnessFlood` scraps, with fairness keys (the default) and without them
 * (FIFO within a priority level: the service's clients send no keys for that phase). Ratio: B's p50
 * under the flood ÷ B's idle p50. In process the phase switches the clients' policy; on the cluster
 * topology it restarts every API and worker process with TEMPORAL_FAIRNESS=false, and back.
 */
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../../src/auth/tokens';
import { createApiClient } from '../../lib/api-client';
import { follow, scrapFamily } from '../families';
import { drain, ms, pcts, pool, ratio } from '../measure';
import { elapsed, say } from '../lifecycle';
import { JOB_TIMEOUT_MS, POST_CLIENTS } from '../options';
import type { BenchSection, StackContext } from '../section';

/** Tenant B's scraps per phase. */
const VICTIM_SCRAPS = 20;

/** A tenant of the bench (its own user and typed client): a submit, and a submit-and-wait of one scrap (ms until its analysis is COMPLETED). */
async function tenant(ctx: StackContext, name: string) {
  const { token } = await createUserWithToken(ctx.stack.db, `bench-${ctx.runId}-${name}`);
  const scraps = scrapFamily(ctx, createApiClient(ctx.stack.apiUrl, token));
  let seq = 0;
  /** POST /scraps; resolves with its analysis job's id. */
  const submit = async (): Promise<string> => (await scraps.create(seq++, `q-${name}`))[0]!;
  const completed = async (jobId: string): Promise<void> => {
    // Behind a flood without keys, B waits for the whole flood (minutes): the flood's drain bound.
    const { status } = await follow(scraps, jobId, 'long', JOB_TIMEOUT_MS * 4);
    if (status !== 'COMPLETED') throw new Error(`(q) job ${jobId} of ${name} ${status}`);
  };
  const latency = async (): Promise<number> => {
    const t = performance.now();
    await completed(await submit());
    return performance.now() - t;
  };
  return { submit, latency };
}

/** B's latencies: its scraps at once, each followed to COMPLETED. */
const victimRun = async (b: Awaited<ReturnType<typeof tenant>>): Promise<number[]> => Promise.all(Array.from({ length: VICTIM_SCRAPS }, () => b.latency()));

/** Section (q). */
export const sectionQ: BenchSection = {
  letter: 'q',
  needs: 'stack',
  async run(ctx) {
    const { stack, sizes } = ctx;
    const flood = sizes.fairnessFlood;
    say();
    say(`## (q) fairness: tenant A floods ${flood} scraps, then tenant B submits ${VICTIM_SCRAPS}; B's submit → COMPLETED p50 vs B alone ${elapsed()}`);
    const policy = stack.config.temporal.fairness;
    const { cluster } = stack;
    /** Turns the fairness keys of every workflow start of the service on or off. */
    const keys = async (on: boolean): Promise<void> => {
      if (cluster) await cluster.restartServices(on ? undefined : { TEMPORAL_FAIRNESS: 'false' });
      else policy.enabled = on;
    };
    const a = await tenant(ctx, 'flooder');
    const b = await tenant(ctx, 'victim');
    await victimRun(b); // warm-up
    const idle = pcts(await victimRun(b));
    say(`  B alone: p50 ${ms(idle.p50)}, p95 ${ms(idle.p95)}`);
    const phase = async (keyed: boolean) => {
      await drain(stack.db, '(q) before a flood');
      if (!keyed) await keys(false);
      try {
        const t = performance.now();
        await pool(flood, POST_CLIENTS, async () => {
          await a.submit();
        });
        const floodMs = performance.now() - t;
        const lat = pcts(await victimRun(b));
        await drain(stack.db, '(q) the flood', JOB_TIMEOUT_MS * 4);
        say(`  ${keyed ? 'fair (fairness keys)' : 'FIFO (no keys)      '}: A's ${flood} posted in ${ms(floodMs)}; B p50 ${ms(lat.p50)}, p95 ${ms(lat.p95)} = ${ratio(lat.p50 / idle.p50)} of alone`);
        return lat;
      } finally {
        if (!keyed) await keys(true);
      }
    };
    const fifo = await phase(false);
    const fair = await phase(true);
    return [
      { measure: '(q) tenant B p50 behind A\'s flood, fairness keys', subject: `${ms(fair.p50)} (${flood} + ${VICTIM_SCRAPS})`, baseline: `B alone ${ms(idle.p50)}`, ratio: ratio(fair.p50 / idle.p50) },
      { measure: '(q) tenant B p50 behind A\'s flood, FIFO', subject: ms(fifo.p50), baseline: `B alone ${ms(idle.p50)}`, ratio: ratio(fifo.p50 / idle.p50) },
    ];
  },
};
