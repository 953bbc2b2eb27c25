/**
 * (i) AI runs: POST /api/v1/ai-runs → SUCCEEDED via GET polls, p50/p95, against `noopWorkflow`
 * start → result (half before, half after); then idempotent replays (one Idempotency-Key, one
 * body, answered from the idempotency record) per second against GET /health.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../../src/auth/tokens';
import { ensureCompany, setMember } from '../../../src/core/companies';
import { elapsed, say } from '../lifecycle';
import { compareWithHealth } from '../load';
import { ms, pcts, pollStatus, pool, rate, ratio } from '../measure';
import { POLL_MS, READ_CONNECTIONS } from '../options';
import type { BenchSection } from '../section';

const TEXTS = ['I need an employment certificate for my visa by Friday', '다음 주 월요일부터 3일 연차 쓰고 싶습니다', '11월 급여가 20만원 적게 들어왔어요', 'Sick leave for 2026-12-03, I saw a doctor'];

/** Section (i). */
export const sectionI: BenchSection = {
  letter: 'i',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack, runId, noop } = ctx;
    const { apiUrl, db } = stack;
    say();
    const runsN = Math.max(8, sizes.latencyScraps / 2);
    say(`## (i) AI runs: POST /api/v1/ai-runs → SUCCEEDED (GET poll every ${POLL_MS} ms), ${runsN} runs, concurrency ${sizes.latencyConcurrency}; idempotent replays vs GET /health ${elapsed()}`);
    const companyId = await ensureCompany(db, `bench-${runId}`);
    const hr = await createUserWithToken(db, `bench-hr-${runId}`);
    await setMember(db, companyId, hr.userId, 'HR_MANAGER');
    const hrHeaders = { authorization: `Bearer ${hr.token}`, 'content-type': 'application/json' };
    const post = async (key: string, body: object) => {
      const res = await fetch(`${apiUrl}/api/v1/ai-runs`, { method: 'POST', headers: { ...hrHeaders, 'idempotency-key': key }, body: JSON.stringify(body) });
      const json = (await res.json()) as { aiRunId?: string };
      if (res.status !== 202 || !json.aiRunId) throw new Error(`POST /api/v1/ai-runs → ${res.status} ${JSON.stringify(json)}`);
      return json.aiRunId;
    };
    await noop.latencies(8, sizes.latencyConcurrency); // warm-up, not counted
    const baseLat = await noop.latencies(runsN / 2, sizes.latencyConcurrency);
    const runLat: number[] = [];
    let failedRuns = 0;
    await pool(runsN, sizes.latencyConcurrency, async (i) => {
      const t = performance.now();
      const id = await post(randomUUID(), { companyId, text: `${TEXTS[i % TEXTS.length]} (#${i})` });
      const status = await pollStatus(`${apiUrl}/api/v1/ai-runs/${id}`, hrHeaders, ['SUCCEEDED', 'FAILED'], `(i) ai run ${id}`);
      if (status === 'FAILED') failedRuns++;
      else runLat.push(performance.now() - t);
    });
    baseLat.push(...(await noop.latencies(runsN / 2, sizes.latencyConcurrency)));
    const runP = pcts(runLat);
    const baseP = pcts(baseLat);
    say(`POST → SUCCEEDED: p50 ${ms(runP.p50)}, p95 ${ms(runP.p95)} (n=${runP.n}${failedRuns ? `, ${failedRuns} FAILED` : ''})`);
    say(`baseline noopWorkflow start → result: p50 ${ms(baseP.p50)}, p95 ${ms(baseP.p95)} (n=${baseP.n}, half before and half after); ratio p50 ${ratio(runP.p50 / baseP.p50)}, p95 ${ratio(runP.p95 / baseP.p95)}`);
    const rows = [
      { measure: '(i) POST /api/v1/ai-runs → SUCCEEDED, p50', subject: ms(runP.p50), baseline: `${ms(baseP.p50)} noopWorkflow start → result`, ratio: ratio(runP.p50 / baseP.p50) },
      { measure: '(i) POST /api/v1/ai-runs → SUCCEEDED, p95', subject: ms(runP.p95), baseline: `${ms(baseP.p95)} noopWorkflow start → result`, ratio: ratio(runP.p95 / baseP.p95) },
    ];

    const replayKey = randomUUID();
    const replayBody = JSON.stringify({ companyId, text: 'Replay: an employment certificate for my bank loan' });
    await post(replayKey, JSON.parse(replayBody) as object);
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
