/**
 * (k) Study memo cards:
 * - one memo-card poll over N sources (10,000; 1,000 with --quick) of which 1 % have a new version:
 *   its duration and its database queries, against a baseline poll that checks each source with a
 *   query of its own (the obvious loop: list the ready sources, then ask for each whether its
 *   version has a job). Three runs of the poll (the jobs a run enqueued are deleted again), the
 *   baseline before each with --quick, before the first only on the full size (it takes minutes).
 * - extraction of one source version (explanation from a real README, the local AI runtime, the
 *   guards, the supersede; enqueue → the workflow's result on the `study-cards` queue), p50/p95,
 *   against the `noopWorkflow` start → result baseline, half of it before and half after.
 */
import { performance } from 'node:perf_hooks';
import type { Db } from '../../../src/db/client';
import { enqueueExtraction, pollSources } from '../../../src/services/study/enqueue';
import { startExtraction } from '../../../src/services/study/start';
import { explainedQuestions } from '../families';
import { elapsed, say } from '../lifecycle';
import { phaseReport, type PhaseSample } from '../phases';
import { median, ms, percentile as pct, pool, ratio } from '../measure';
import type { BenchSection } from '../section';
import type { Row } from '../summary';

/** A client counting every query it runs (model operations and raw SQL). */
function counting(db: Db): { db: Db; count: () => number; reset: () => void } {
  let n = 0;
  const ext = db.$extends({ query: { $allOperations: async ({ args, query }) => { n += 1; return query(args); } } }) as unknown as Db;
  return { db: ext, count: () => n, reset: () => void (n = 0) };
}

/**
 * The baseline poll: the ready sources listed, then one query per source for a job of its exact
 * version (what an ORM loop does). Read-only: returns the sources that would be enqueued.
 */
async function perSourcePoll(db: Db, limit: number): Promise<string[]> {
  const ready = await db.studyQuestion.findMany({ where: { aiExplanationGeneratedAt: { not: null } }, select: { id: true, aiExplanationGeneratedAt: true }, orderBy: { aiExplanationGeneratedAt: 'asc' } });
  const out: string[] = [];
  for (const q of ready) {
    if (out.length >= limit) break;
    const job = await db.studyMemoCardJob.findFirst({ where: { sourceKind: 'study_question', sourceId: q.id, sourceVersion: q.aiExplanationGeneratedAt! }, select: { id: true } });
    if (!job) out.push(q.id);
  }
  return out;
}

/** Section (k). */
export const sectionK: BenchSection = {
  letter: 'k',
  needs: 'stack',
  async run(ctx) {
    const { db, client, config } = ctx.stack;
    const rows: Row[] = [];
    const sources = ctx.quick ? 1_000 : 10_000;
    const fresh = Math.max(1, Math.round(sources / 100));
    say();
    say(`## (k) study memo cards: one poll over ${sources} sources with ${fresh} new versions (1 %) vs a per-source poll; extraction p50/p95 vs noopWorkflow ${elapsed()}`);

    // Seed: one user, one topic, N explained questions; a completed job for the current version of all but 1 %.
    const userId = (await db.$queryRaw<{ id: string }[]>`SELECT gen_random_uuid()::text AS id`)[0]!.id;
    const topic = await db.studyTopic.create({ data: { userId, name: 'bench (k)' } });
    let t = performance.now();
    await db.$executeRaw`
      INSERT INTO study_questions (id, user_id, topic_id, question, ai_explanation, ai_explanation_generated_at, explanation_origin, updated_at)
      SELECT gen_random_uuid(), ${userId}::uuid, ${topic.id}::uuid, 'Question ' || i, 'A bench explanation ' || i || '.',
             now() - make_interval(secs => ${sources} - i), 'ai', now()
      FROM generate_series(1, ${sources}) AS i`;
    await db.$executeRaw`
      INSERT INTO study_memo_card_jobs (id, user_id, source_kind, source_id, source_version, status, attempts, workflow_id, completed_at)
      SELECT gen_random_uuid(), user_id, 'study_question', id, ai_explanation_generated_at, 'completed', 1, 'bench-' || id, now()
      FROM (SELECT id, user_id, ai_explanation_generated_at, row_number() OVER (ORDER BY id) AS n FROM study_questions WHERE topic_id = ${topic.id}::uuid) q
      WHERE n > ${fresh}`;
    await db.$executeRaw`ANALYZE study_questions`;
    await db.$executeRaw`ANALYZE study_memo_card_jobs`;
    say(`seeded ${sources} questions and ${sources - fresh} jobs in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const counted = counting(db);
    const one: { ms: number; queries: number; enqueued: number }[] = [];
    const base: { ms: number; queries: number; found: number }[] = [];
    // The per-source baseline costs one round trip per source: three runs with --quick, one on the full size.
    for (let run = 0; run < 3; run++) {
      if (run === 0 || ctx.quick) {
        counted.reset();
        t = performance.now();
        const found = await perSourcePoll(counted.db, fresh);
        base.push({ ms: performance.now() - t, queries: counted.count(), found: found.length });
      }
      counted.reset();
      t = performance.now();
      const jobs = await pollSources(counted.db, { limit: fresh, sourceKinds: ['study_question'], maxAttempts: 2 });
      one.push({ ms: performance.now() - t, queries: counted.count(), enqueued: jobs.length });
      await db.studyMemoCardJob.deleteMany({ where: { id: { in: jobs.map((j) => j.jobId) } } });
    }
    const oneMs = median(one.map((r) => r.ms));
    const baseMs = median(base.map((r) => r.ms));
    say(`one-statement poll: ${one.map((r) => `${ms(r.ms)} (${r.queries} query, ${r.enqueued} enqueued)`).join(', ')}`);
    say(`per-source poll (read-only): ${base.map((r) => `${ms(r.ms)} (${r.queries} queries, ${r.found} found)`).join(', ')}`);
    rows.push({ measure: `(k) memo-card poll over ${sources} sources, 1 % new, median`, subject: ms(oneMs), baseline: `${ms(baseMs)} per-source poll`, ratio: ratio(oneMs / baseMs) });
    rows.push({ measure: '(k) memo-card poll: database queries', subject: String(one[0]!.queries), baseline: `${base[0]!.queries} per-source poll`, ratio: ratio(one[0]!.queries / base[0]!.queries) });

    // Extraction latency: enqueue → workflow result (local AI, guards, supersede) vs noopWorkflow.
    const n = ctx.quick ? 12 : 60;
    const concurrency = 4;
    const { topicId: extractTopicId, questions } = await explainedQuestions(db, userId, ctx.docs, n, 'bench (k) extraction');
    await ctx.noop.latencies(8, concurrency); // warm-up
    const baseline = await ctx.noop.latencies(Math.ceil(n / 2), concurrency);
    const lat: number[] = [];
    const samples: PhaseSample[] = [];
    const codes = new Map<string, number>();
    await pool(n, concurrency, async (i) => {
      const q = questions[i]!;
      const started = performance.now();
      const submittedAt = Date.now();
      const r = await enqueueExtraction(db, { userId, sourceKind: 'study_question', sourceId: q.id, sourceVersion: q.version });
      if (r.status !== 'enqueued') throw new Error(`(k) not enqueued: ${JSON.stringify(r)}`);
      await startExtraction(client, config, r.job);
      const result = (await client.workflow.getHandle(r.job.workflowId).result()) as { status: string; errorCode: string | null };
      lat.push(performance.now() - started);
      samples.push({ workflowId: r.job.workflowId, submittedAt, seenAt: Date.now() });
      const key = `${result.status}${result.errorCode ? ` ${result.errorCode}` : ''}`;
      codes.set(key, (codes.get(key) ?? 0) + 1);
    });
    const noopSamples: PhaseSample[] = [];
    baseline.push(...(await ctx.noop.latencies(Math.floor(n / 2), concurrency, noopSamples)));
    const cards = await db.studyMemoCard.count({ where: { userId, topicId: extractTopicId, deletedAt: null } });
    say(`extraction enqueue → result: p50 ${ms(pct(lat, 50))}, p95 ${ms(pct(lat, 95))} (n=${lat.length}, concurrency ${concurrency}; ${[...codes].map(([k, v]) => `${v} ${k}`).join(', ')}; ${cards} live cards)`);
    say(`baseline noopWorkflow start → result: p50 ${ms(pct(baseline, 50))}, p95 ${ms(pct(baseline, 95))} (n=${baseline.length}, half before and half after)`);
    for (const l of await phaseReport(client, 'studyCardExtractWorkflow (enqueue = client submit)', samples.slice(0, 40))) say(l);
    for (const l of await phaseReport(client, 'noopWorkflow (second half)', noopSamples.slice(0, 40))) say(l);
    rows.push({ measure: '(k) memo-card extraction enqueue → result, p50', subject: ms(pct(lat, 50)), baseline: `${ms(pct(baseline, 50))} noopWorkflow start → result`, ratio: ratio(pct(lat, 50) / pct(baseline, 50)) });
    rows.push({ measure: '(k) memo-card extraction enqueue → result, p95', subject: ms(pct(lat, 95)), baseline: `${ms(pct(baseline, 95))} noopWorkflow start → result`, ratio: ratio(pct(lat, 95) / pct(baseline, 95)) });
    return rows;
  },
};
