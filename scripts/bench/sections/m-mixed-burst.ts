/**
 * (m) A mixed burst over every family: N jobs (1,000; 100 with --quick) — scraps (two async jobs
 * each, SAN-7), AI runs (AR-1), portal links (PO-1, one user each) and study questions (their
 * STUDY_EXPLANATION job) — submitted through the API by POST_CLIENTS clients, until every one is
 * terminal; against N `noopWorkflow` starts by as many clients until every result is in. Then the
 * Temporal runs of the burst's job workflows per workflow ID (visibility, UserId search attribute):
 * 1.00 means nothing was started twice.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../../src/auth/tokens';
import { ensureCompany, setMember } from '../../../src/core/companies';
import type { Db } from '../../../src/db/client';
import { SEED_STUDENTS } from '../../../test/support/portal-seed';
import { assertWorkersAlive, elapsed, say, sleep } from '../lifecycle';
import { fmt, pool, ratio } from '../measure';
import { POST_CLIENTS } from '../options';
import type { BenchSection, StackContext } from '../section';

/** How many of each family a burst of `total` jobs submits (a scrap counts two jobs). */
export function burstPlan(total: number): { scraps: number; aiRuns: number; portalLinks: number; questions: number } {
  const scraps = Math.round(total * 0.15);
  const portalLinks = Math.round(total * 0.2);
  const aiRuns = Math.round(total * 0.25);
  return { scraps, aiRuns, portalLinks, questions: total - 2 * scraps - aiRuns - portalLinks };
}

/** Terminal states of the burst's projection rows, by family. */
interface Counts {
  scraps: number;
  aiRuns: number;
  portal: number;
  study: number;
  failed: number;
}

/** How many of the given rows are terminal (and how many of those FAILED), one query per table. */
async function terminal(db: Db, ids: { async: string[]; aiRuns: string[]; portal: string[] }, studyIds: Set<string>): Promise<Counts> {
  const [jobs, runs, links] = await Promise.all([
    db.asyncJob.findMany({ where: { jobId: { in: ids.async }, status: { in: ['COMPLETED', 'FAILED'] } }, select: { jobId: true, status: true } }),
    db.aiRun.findMany({ where: { id: { in: ids.aiRuns }, status: { in: ['SUCCEEDED', 'FAILED'] } }, select: { status: true } }),
    db.portalLinkJob.findMany({ where: { id: { in: ids.portal }, status: { in: ['SUCCEEDED', 'FAILED'] } }, select: { status: true } }),
  ]);
  const failed = [...jobs, ...runs, ...links].filter((r) => r.status === 'FAILED').length;
  const study = jobs.filter((j) => studyIds.has(j.jobId)).length;
  return { scraps: jobs.length - study, aiRuns: runs.length, portal: links.length, study, failed };
}

/** Closed workflow runs per workflow ID of the users' job workflows, once visibility lists `atLeast` IDs (bounded). */
async function runsPerWorkflow(ctx: StackContext, userIds: string[], since: Date, atLeast: number): Promise<Map<string, number>> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const runs = new Map<string, number>();
    for (let i = 0; i < userIds.length; i += 50) {
      const users = userIds.slice(i, i + 50).map((u) => `UserId="${u}"`).join(' OR ');
      const query = `(${users}) AND StartTime >= "${since.toISOString()}" AND ExecutionStatus != "Running"`;
      for await (const w of ctx.stack.client.workflow.list({ query })) runs.set(w.workflowId, (runs.get(w.workflowId) ?? 0) + 1);
    }
    if (runs.size >= atLeast || performance.now() > deadline) return runs;
    await sleep(1000);
  }
}

/** Section (m); the stack starts the portal emulator, the object store and the portal worker for it. */
export const sectionM: BenchSection = {
  letter: 'm',
  needs: 'stack',
  portal: true,
  async run(ctx) {
    const { stack, runId, noop, docs } = ctx;
    const { apiUrl, db } = stack;
    const total = ctx.sizes.burstJobs;
    const plan = burstPlan(total);
    say();
    say(`## (m) mixed burst: ${total} jobs (${plan.scraps} scraps × 2, ${plan.aiRuns} AI runs, ${plan.portalLinks} portal links, ${plan.questions} study questions), ${POST_CLIENTS} clients, until all are terminal; vs ${total} noopWorkflow start → result ${elapsed()}`);

    const auth = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const send = async (headers: Record<string, string>, url: string, body: unknown, expect: number, method = 'POST') => {
      const res = await fetch(`${apiUrl}${url}`, { method, headers, body: JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status !== expect) throw new Error(`(m) ${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const writer = await createUserWithToken(db, `bench-m-writer-${runId}`);
    const hr = await createUserWithToken(db, `bench-m-hr-${runId}`);
    const companyId = await ensureCompany(db, `bench-m-${runId}`);
    await setMember(db, companyId, hr.userId, 'HR_MANAGER');
    const student = await createUserWithToken(db, `bench-m-student-${runId}`);
    const topic = await send(auth(student.token), '/study/topics', { name: `bench (m) ${runId}` }, 201);
    const topicId = String(topic.topicId);
    await send(auth(student.token), `/study/topics/${topicId}/focus`, { focused: true }, 200, 'PUT');
    const linkers = await Promise.all(Array.from({ length: plan.portalLinks }, (_, i) => createUserWithToken(db, `bench-m-po-${runId}-${i}`)));
    const students = Object.values(SEED_STUDENTS);

    const tasks: (() => Promise<void>)[] = [];
    const ids = { async: [] as string[], aiRuns: [] as string[], portal: [] as string[] };
    const studyIds = new Set<string>();
    for (let i = 0; i < Math.max(plan.scraps, plan.aiRuns, plan.portalLinks, plan.questions); i++) {
      if (i < plan.scraps) tasks.push(async () => {
        const r = await send(auth(writer.token), '/scraps', { content: `${docs[i % docs.length]!.slice(0, 4_000)}\n\nbench ${runId} m-${i}` }, 202);
        ids.async.push(String(r.analysisJobId), String(r.refineJobId));
      });
      if (i < plan.aiRuns) tasks.push(async () => {
        const r = await send({ ...auth(hr.token), 'idempotency-key': randomUUID() }, '/api/v1/ai-runs', { companyId, text: `I need an employment certificate for my visa (bench ${runId} ${i})` }, 202);
        ids.aiRuns.push(String(r.aiRunId));
      });
      if (i < plan.portalLinks) tasks.push(async () => {
        const s = students[i % students.length]!;
        const r = await send({ ...auth(linkers[i]!.token), 'idempotency-key': randomUUID() }, '/portal/link', { portalType: 'suwon', studentId: s.studentId, password: s.password }, 202);
        ids.portal.push(String(r.jobId));
      });
      if (i < plan.questions) tasks.push(async () => {
        const r = await send(auth(student.token), `/study/topics/${topicId}/questions`, { question: `Why does a partial index stay small? (bench ${runId} ${i})` }, 201);
        const id = String(r.explanationJobId);
        ids.async.push(id);
        studyIds.add(id);
      });
    }

    const since = new Date(Date.now() - 1000);
    const t0 = performance.now();
    const submitMs = await pool(tasks.length, POST_CLIENTS, (i) => tasks[i]!());
    const jobs = ids.async.length + ids.aiRuns.length + ids.portal.length;
    const timeoutMs = 20 * 60_000;
    let counts: Counts;
    for (;;) {
      counts = await terminal(db, ids, studyIds);
      if (counts.scraps + counts.aiRuns + counts.portal + counts.study >= jobs) break;
      assertWorkersAlive();
      if (performance.now() - t0 > timeoutMs) throw new Error(`(m) ${jobs - counts.scraps - counts.aiRuns - counts.portal - counts.study} of ${jobs} jobs not terminal after ${timeoutMs / 60_000} min`);
      await sleep(250);
    }
    const burstMs = performance.now() - t0;

    const n0 = performance.now();
    const handles = [] as Awaited<ReturnType<typeof noop.start>>[];
    await pool(total, POST_CLIENTS, async () => void handles.push(await noop.start()));
    await pool(handles.length, POST_CLIENTS * 4, async (i) => void (await handles[i]!.result()));
    const noopMs = performance.now() - n0;

    const userIds = [writer.userId, hr.userId, student.userId, ...linkers.map((u) => u.userId)];
    const runs = await runsPerWorkflow(ctx, userIds, since, plan.aiRuns + plan.portalLinks);
    const runCount = [...runs.values()].reduce((a, b) => a + b, 0);
    const twice = [...runs].filter(([, k]) => k > 1);
    say(`burst: ${jobs} jobs submitted in ${fmt(submitMs / 1000)} s, all terminal after ${fmt(burstMs / 1000)} s (${counts.failed} FAILED); ${fmt(jobs / (burstMs / 1000))} jobs/s`);
    say(`baseline: ${total} noopWorkflow start → result in ${fmt(noopMs / 1000)} s; ratio ${ratio(burstMs / noopMs)}`);
    say(`Temporal: ${runCount} closed runs of ${runs.size} job workflows of the burst's users (${fmt(runCount / Math.max(1, runs.size), 2)} runs per workflow ID${twice.length ? `; started twice: ${twice.slice(0, 5).map(([id, k]) => `${id} × ${k}`).join(', ')}` : ''})`);
    if (counts.failed > 0) throw new Error(`(m) ${counts.failed} of ${jobs} jobs FAILED`);
    return [
      { measure: `(m) mixed burst, ${jobs} jobs over four families, until all terminal`, subject: `${fmt(burstMs / 1000)} s`, baseline: `${fmt(noopMs / 1000)} s for ${total} noopWorkflow start → result`, ratio: ratio(burstMs / noopMs) },
      { measure: '(m) mixed burst: Temporal runs per job workflow ID', subject: `${runCount} runs / ${runs.size} IDs`, baseline: '1 run per ID', ratio: ratio(runCount / Math.max(1, runs.size)) },
    ];
  },
};
