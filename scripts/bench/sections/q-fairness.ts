/**
 * (q) Fairness between tenants: tenant B's 20 scraps (POST /scraps → CARD_ANALYSIS COMPLETED,
 * GET /async-jobs long polls) on an idle system, then submitted right after tenant A flooded the
 * service with `sizes.fairnessFlood` scraps, with fairness keys (the default) and without them
 * (FIFO within a priority level: the API's client sends no keys for that phase). Ratio: B's p50
 * under the flood ÷ B's idle p50. In-process API only (the toggle is the API client's policy).
 */
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../../src/auth/tokens';
import { drain, ms, pcts, pool, ratio } from '../measure';
import { elapsed, say } from '../lifecycle';
import { JOB_TIMEOUT_MS, LONG_POLL_WAIT_S, POST_CLIENTS } from '../options';
import type { BenchSection, StackContext } from '../section';

/** Tenant B's scraps per phase. */
const VICTIM_SCRAPS = 20;

/** A tenant of the bench: its headers and a submit-and-wait of one scrap (ms until its analysis is COMPLETED). */
async function tenant(ctx: StackContext, name: string) {
  const { token } = await createUserWithToken(ctx.stack.db, `bench-${ctx.runId}-${name}`);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const api = ctx.stack.apiUrl;
  let seq = 0;
  const submit = async (): Promise<string> => {
    const res = await fetch(`${api}/scraps`, { method: 'POST', headers, body: JSON.stringify({ content: `${ctx.docs[seq % ctx.docs.length]}\n\nbench ${ctx.runId} q-${name}-${seq++}` }) });
    const json = (await res.json()) as { analysisJobId?: string };
    if (res.status !== 202 || !json.analysisJobId) throw new Error(`POST /scraps (${name}) → ${res.status} ${JSON.stringify(json)}`);
    return json.analysisJobId;
  };
  const completed = async (jobId: string, t: number): Promise<void> => {
    let etag: string | undefined;
    for (;;) {
      const res = await fetch(`${api}/async-jobs/${jobId}`, { headers: etag ? { ...headers, 'if-none-match': etag, prefer: `wait=${LONG_POLL_WAIT_S}` } : headers });
      if (res.status === 304) {
        await res.arrayBuffer();
      } else {
        const json = (await res.json()) as { status: string };
        if (json.status === 'COMPLETED') return;
        if (json.status === 'FAILED') throw new Error(`(q) job ${jobId} of ${name} FAILED`);
        etag = res.headers.get('etag') ?? undefined;
      }
      if (performance.now() - t > JOB_TIMEOUT_MS) throw new Error(`(q) job ${jobId} of ${name} not COMPLETED after ${JOB_TIMEOUT_MS} ms`);
    }
  };
  const latency = async (): Promise<number> => {
    const t = performance.now();
    await completed(await submit(), t);
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
    if (!stack.app) throw new Error('(q) needs the in-process API (its client\'s fairness policy is switched for the FIFO phase)');
    const policy = stack.config.temporal.fairness;
    const a = await tenant(ctx, 'flooder');
    const b = await tenant(ctx, 'victim');
    await victimRun(b); // warm-up
    const idle = pcts(await victimRun(b));
    say(`  B alone: p50 ${ms(idle.p50)}, p95 ${ms(idle.p95)}`);
    const phase = async (keyed: boolean) => {
      await drain(stack.db, '(q) before a flood');
      policy.enabled = keyed;
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
        policy.enabled = true;
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
