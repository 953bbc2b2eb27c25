/**
 * (i) AI runs: POST /api/v1/ai-runs → SUCCEEDED learnt by GET long polls (`If-None-Match` +
 * `Prefer: wait`, as (b) follows its jobs; the baseline's client waits by the SDK's long poll),
 * p50/p95, against `noopWorkflow` start → result (half before, half after), with the median of each
 * phase of sampled runs (history events and the projection's timestamps); then idempotent replays
 * (one Idempotency-Key, one body, answered from the idempotency record) per second against GET /health.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { aiRunFamily, follow } from '../families';
import { elapsed, say } from '../lifecycle';
import { compareWithHealth } from '../load';
import { median, ms, pcts, pool, rate, ratio } from '../measure';
import { LONG_POLL_WAIT_S, READ_CONNECTIONS } from '../options';
import { phaseReport, type PhaseSample } from '../phases';
import { countStatements, formatTally } from '../statements';
import type { BenchSection } from '../section';

/** Section (i). */
export const sectionI: BenchSection = {
  letter: 'i',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack, noop } = ctx;
    const { apiUrl, db } = stack;
    say();
    const runsN = Math.max(8, sizes.latencyScraps / 2);
    say(`## (i) AI runs: POST /api/v1/ai-runs → SUCCEEDED (GET long polls, Prefer: wait=${LONG_POLL_WAIT_S}), ${runsN} runs, concurrency ${sizes.latencyConcurrency}; idempotent replays vs GET /health ${elapsed()}`);
    const { family, companyId, hrHeaders, post } = await aiRunFamily(ctx, 'i');
    await noop.latencies(8, sizes.latencyConcurrency); // warm-up, not counted
    const baseLat = await noop.latencies(runsN / 2, sizes.latencyConcurrency);
    const runLat: number[] = [];
    const seen: { id: string; submittedAt: number; seenAt: number }[] = [];
    let failedRuns = 0;
    const statements = countStatements();
    await pool(runsN, sizes.latencyConcurrency, async (i) => {
      const t = performance.now();
      const submittedAt = Date.now();
      const id = (await family.create(i, 'i'))[0]!;
      const { status, seenAt } = await follow(family, id, 'long');
      if (status === 'FAILED') failedRuns++;
      else runLat.push(performance.now() - t);
      seen.push({ id, submittedAt, seenAt });
    });
    const runTally = statements.tally();
    const noopSamples: PhaseSample[] = [];
    baseLat.push(...(await noop.latencies(Math.max(1, Math.round(runsN / 2)), sizes.latencyConcurrency, noopSamples)));
    const runP = pcts(runLat);
    const baseP = pcts(baseLat);
    say(`POST → SUCCEEDED: p50 ${ms(runP.p50)}, p95 ${ms(runP.p95)} (n=${runP.n}${failedRuns ? `, ${failedRuns} FAILED` : ''})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(baseP.p50)}, p95 ${ms(baseP.p95)} (n=${baseP.n}, half before and half after); ratio p50 ${ratio(runP.p50 / baseP.p50)}, p95 ${ratio(runP.p95 / baseP.p95)}`);
    say(`database statements per run (the whole process: API, workers, long polls; pg driver calls): ${formatTally(runTally, runsN)}`);
    const app = stack.app;
    if (app) {
      // One create and one read of a finished run, counted while nothing else runs (the new run's
      // first workflow task comes after the create's answer: its start is the create's last call
      // but one, the read after it).
      const created = await statements.during(() =>
        app.inject({ method: 'POST', url: '/api/v1/ai-runs', headers: { ...hrHeaders, 'idempotency-key': randomUUID() }, payload: JSON.stringify({ companyId, text: 'Count: an employment certificate for my visa' }) }),
      );
      const runId = (created.value.json() as { aiRunId: string }).aiRunId;
      await follow(family, runId, 'long');
      const read = await statements.during(() => app.inject({ method: 'GET', url: `/api/v1/ai-runs/${runId}`, headers: hrHeaders }));
      say(`database statements of one request: POST /api/v1/ai-runs (new key, ${created.value.statusCode}) ${formatTally(created.tally)}; GET /api/v1/ai-runs/{id} (SUCCEEDED, ${read.value.statusCode}) ${formatTally(read.tally)}`);
    }
    statements.stop();
    // Profile: where one run's time goes, from the middle half of the runs: history events
    // (server times) and the projection's own timestamps (this process's clock, as the client's).
    const mid = seen.slice(Math.floor(seen.length / 4), Math.floor(seen.length / 4) + 40);
    const projected = await db.aiRun.findMany({ where: { id: { in: mid.map((m) => m.id) } }, select: { id: true, workflowId: true, createdAt: true, startedAt: true, finishedAt: true } });
    const byId = new Map(projected.map((r) => [r.id, r]));
    const samples: PhaseSample[] = mid.flatMap((m) => {
      const r = byId.get(m.id);
      return r ? [{ workflowId: r.workflowId, submittedAt: m.submittedAt, seenAt: m.seenAt }] : [];
    });
    for (const l of await phaseReport(stack.client, 'aiRunWorkflow', samples)) say(l);
    const proj = (f: (m: (typeof mid)[number], r: (typeof projected)[number]) => number | null | undefined) =>
      median(mid.flatMap((m) => {
        const r = byId.get(m.id);
        const v = r ? f(m, r) : undefined;
        return v === undefined || v === null || !Number.isFinite(v) ? [] : [v];
      })).toFixed(0);
    say(`ai_runs projection: median over ${projected.length} runs (ms): client submit → row created ${proj((m, r) => r.createdAt.getTime() - m.submittedAt)}; created → RUNNING (started_at) ${proj((_, r) => r.startedAt && r.startedAt.getTime() - r.createdAt.getTime())}; RUNNING → SUCCEEDED (finished_at) ${proj((_, r) => r.startedAt && r.finishedAt && r.finishedAt.getTime() - r.startedAt.getTime())}; SUCCEEDED → client saw it ${proj((m, r) => r.finishedAt && m.seenAt - r.finishedAt.getTime())}`);
    for (const l of await phaseReport(stack.client, 'noopWorkflow (second half)', noopSamples.slice(0, 40))) say(l);
    const rows = [
      { measure: '(i) POST /api/v1/ai-runs → SUCCEEDED, p50', subject: ms(runP.p50), baseline: `${ms(baseP.p50)} noopWorkflow start → result`, ratio: ratio(runP.p50 / baseP.p50) },
      { measure: '(i) POST /api/v1/ai-runs → SUCCEEDED, p95', subject: ms(runP.p95), baseline: `${ms(baseP.p95)} noopWorkflow start → result`, ratio: ratio(runP.p95 / baseP.p95) },
    ];

    const replayKey = randomUUID();
    const replayText = 'Replay: an employment certificate for my bank loan';
    const replayBody = JSON.stringify({ companyId, text: replayText });
    await post(replayKey, replayText);
    const half = Math.max(1, Math.round(sizes.readSeconds / 2));
    const replaySpec = { url: apiUrl, method: 'POST' as const, paths: ['/api/v1/ai-runs'], headers: { ...hrHeaders, 'idempotency-key': replayKey }, connections: READ_CONNECTIONS, body: replayBody };
    const healthSpec = { url: apiUrl, method: 'GET' as const, paths: ['/health'], headers: hrHeaders, connections: READ_CONNECTIONS };
    const { subjectRate: replayRate, healthRate } = await compareWithHealth(replaySpec, healthSpec, half, 'replays');
    const runsOfKey = await db.aiRun.count({ where: { companyId, inputMasked: { startsWith: 'Replay:' } } });
    say(`idempotent replays: ${rate(replayRate)}; GET /health: ${rate(healthRate)}; ratio ${ratio(replayRate / healthRate)}; runs made by the replayed key: ${runsOfKey}`);
    rows.push({ measure: `(i) idempotent POST /api/v1/ai-runs replays req/s, ${READ_CONNECTIONS} connections`, subject: rate(replayRate), baseline: `${rate(healthRate)} GET /health`, ratio: ratio(replayRate / healthRate) });
    return rows;
  },
};
