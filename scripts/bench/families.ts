/**
 * The bench's jobs of each family, created and read through the typed API client
 * (scripts/lib/api-client.ts: openapi-fetch over clients/typescript/schema.d.ts), so every run
 * exercises the OpenAPI document with real calls: POST /scraps → GET /async-jobs/{jobId},
 * POST /api/v1/ai-runs → GET /api/v1/ai-runs/{aiRunId}, POST /portal/link →
 * GET /portal/link/jobs/{jobId}, POST /study/memo-card-jobs → GET /study/memo-card-jobs/{jobId}.
 * Each family also reads its projection's terminal write (finished_at / completed_at) for the
 * completion → seen delay of (g). Setup that the API does not offer (users with tokens, company
 * membership, explained study questions) goes to the database, as the tests' fixtures do.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createUserWithToken } from '../../src/auth/tokens';
import { ensureCompany, setMember } from '../../src/core/companies';
import type { Db } from '../../src/db/client';
import { writeExplanation } from '../../src/services/study/questions';
import { SEED_STUDENTS } from '../../test/support/portal-seed';
import { ApiCallError, createApiClient, ok, type ApiClient } from '../lib/api-client';
import { followJob, type Followed, type PollHeaders, type PollWay, type StatusRead } from './follow';
import { assertWorkersAlive, sleep } from './lifecycle';
import { JOB_TIMEOUT_MS, LONG_POLL_WAIT_S, POLL_MS } from './options';
import type { StackContext } from './section';

/** One family's jobs as the bench creates and follows them. */
export interface BenchFamily {
  /** e.g. `scraps`. */
  name: string;
  /** The status resource, e.g. `GET /async-jobs/{jobId}`. */
  resource: string;
  /** The statuses that end a follow, and those of them that are failures. */
  terminal: readonly string[];
  failed: readonly string[];
  /** How many jobs one {@link create} makes (a scrap: its analysis and refine jobs). */
  jobsPerCreate: number;
  /** Creates the `i`-th unit of work (`tag` goes into its content); resolves with the ids of its jobs. */
  create(i: number, tag: string): Promise<string[]>;
  /** One read of job `id`'s status resource with `headers`; throws {@link ApiCallError} on a status other than 200 and 304. */
  read(id: string, headers: PollHeaders): Promise<StatusRead>;
  /** The projection's terminal write of each id that has one, ms since the epoch. */
  finishedAt(ids: readonly string[]): Promise<Map<string, number>>;
}

/**
 * Follows job `id` of `family` until terminal, the bench's way: POLL_MS between short polls,
 * `Prefer: wait=LONG_POLL_WAIT_S` on long polls, `timeoutMs` (ms, default JOB_TIMEOUT_MS) at the most, throwing when a
 * worker of the stack failed.
 */
export function follow(family: BenchFamily, id: string, way: PollWay, timeoutMs = JOB_TIMEOUT_MS): Promise<Followed> {
  return followJob((h) => family.read(id, h), {
    way,
    terminal: family.terminal,
    what: `${family.name} job ${id}`,
    pollMs: POLL_MS,
    waitS: LONG_POLL_WAIT_S,
    timeoutMs,
    sleep,
    now: () => performance.now(),
    wallClock: () => Date.now(),
    check: assertWorkersAlive,
  });
}

/**
 * A typed status GET's answer as a {@link StatusRead}: 304 → not modified; 200 → its `status`
 * and ETag. @throws ApiCallError on any other status.
 */
export async function statusRead(what: string, call: Promise<{ data?: { status: string }; error?: unknown; response: Response }>): Promise<StatusRead> {
  const { data, error, response } = await call;
  if (response.status === 304) return { notModified: true };
  if (response.status !== 200 || !data) throw new ApiCallError(what, response.status, error);
  return { notModified: false, status: data.status, etag: response.headers.get('etag') ?? undefined };
}

/** `{ ids → ms }` of the rows that have a terminal timestamp. */
const timestamps = (rows: readonly { id: string; at: Date | null }[]): Map<string, number> =>
  new Map(rows.flatMap((r) => (r.at ? [[r.id, r.at.getTime()] as const] : [])));

/**
 * Scraps of the bench user (or of `api`'s user): POST /scraps makes an analysis and a refine job
 * (analysis first), read at GET /async-jobs/{jobId}; so can any async job of that user be.
 */
export function scrapFamily(ctx: StackContext, api: ApiClient = ctx.api): BenchFamily {
  const { docs, runId } = ctx;
  const { db } = ctx.stack;
  return {
    name: 'scraps',
    resource: 'GET /async-jobs/{jobId}',
    terminal: ['COMPLETED', 'FAILED'],
    failed: ['FAILED'],
    jobsPerCreate: 2,
    async create(i, tag) {
      const r = await ok('POST /scraps', api.POST('/scraps', { body: { content: `${docs[i % docs.length]}\n\nbench ${runId} ${tag}-${i}` } }));
      return r.refineJobId ? [r.analysisJobId, r.refineJobId] : [r.analysisJobId];
    },
    read: (jobId, header) => statusRead('GET /async-jobs/{jobId}', api.GET('/async-jobs/{jobId}', { params: { path: { jobId }, header } })),
    async finishedAt(ids) {
      const rows = await db.asyncJob.findMany({ where: { jobId: { in: [...ids] } }, select: { jobId: true, finishedAt: true } });
      return timestamps(rows.map((r) => ({ id: r.jobId, at: r.finishedAt })));
    },
  };
}

/** Requests of the AI-run family's bench runs (an HR request each, Korean and English). */
export const AI_RUN_TEXTS = ['I need an employment certificate for my visa by Friday', '다음 주 월요일부터 3일 연차 쓰고 싶습니다', '11월 급여가 20만원 적게 들어왔어요', 'Sick leave for 2026-12-03, I saw a doctor'];

/** The AI-run family plus what (i) needs besides: the company, the HR manager's headers, a POST with a given key. */
export interface AiRunBench {
  family: BenchFamily;
  companyId: string;
  /** The HR manager's bearer token and JSON content type (for the raw load generator). */
  hrHeaders: Record<string, string>;
  /** POST /api/v1/ai-runs with Idempotency-Key `key`; resolves with the run id. */
  post(key: string, text: string): Promise<string>;
}

/**
 * AI runs of a new company (`bench-<run>-<tag>`) whose HR manager (a new user) posts them:
 * POST /api/v1/ai-runs, read at GET /api/v1/ai-runs/{aiRunId}; terminal SUCCEEDED or FAILED.
 */
export async function aiRunFamily(ctx: StackContext, tag: string): Promise<AiRunBench> {
  const { db, apiUrl } = ctx.stack;
  const companyId = await ensureCompany(db, `bench-${ctx.runId}-${tag}`);
  const hr = await createUserWithToken(db, `bench-hr-${ctx.runId}-${tag}`);
  await setMember(db, companyId, hr.userId, 'HR_MANAGER');
  const api = createApiClient(apiUrl, hr.token);
  const post = async (key: string, text: string) =>
    (await ok('POST /api/v1/ai-runs', api.POST('/api/v1/ai-runs', { params: { header: { 'idempotency-key': key } }, body: { companyId, text } }))).aiRunId;
  const family: BenchFamily = {
    name: 'AI runs',
    resource: 'GET /api/v1/ai-runs/{aiRunId}',
    terminal: ['SUCCEEDED', 'FAILED'],
    failed: ['FAILED'],
    jobsPerCreate: 1,
    create: async (i) => [await post(randomUUID(), `${AI_RUN_TEXTS[i % AI_RUN_TEXTS.length]} (#${i})`)],
    read: (aiRunId, header) => statusRead('GET /api/v1/ai-runs/{aiRunId}', api.GET('/api/v1/ai-runs/{aiRunId}', { params: { path: { aiRunId }, header } })),
    async finishedAt(ids) {
      const rows = await db.aiRun.findMany({ where: { id: { in: [...ids] } }, select: { id: true, finishedAt: true } });
      return timestamps(rows.map((r) => ({ id: r.id, at: r.finishedAt })));
    },
  };
  return { family, companyId, hrHeaders: { authorization: `Bearer ${hr.token}`, 'content-type': 'application/json' }, post };
}

/**
 * Portal link jobs against the portal emulator: `n` new users (one active job per user and portal,
 * PO-1), the `i`-th posting POST /portal/link for seeded student `i mod 4` (the stack must run the
 * portal parts), read at GET /portal/link/jobs/{jobId} by its user; terminal SUCCEEDED or FAILED.
 */
export async function portalFamily(ctx: StackContext, n: number, tag: string): Promise<BenchFamily> {
  const { db, apiUrl } = ctx.stack;
  const students = Object.values(SEED_STUDENTS);
  const users = await Promise.all(Array.from({ length: n }, (_, i) => createUserWithToken(db, `bench-po-${ctx.runId}-${tag}-${i}`)));
  const apis = users.map((u) => createApiClient(apiUrl, u.token));
  const owner = new Map<string, ApiClient>();
  return {
    name: 'portal links',
    resource: 'GET /portal/link/jobs/{jobId}',
    terminal: ['SUCCEEDED', 'FAILED'],
    failed: ['FAILED'],
    jobsPerCreate: 1,
    async create(i) {
      const api = apis[i % apis.length]!;
      const student = students[i % students.length]!;
      const r = await ok(
        'POST /portal/link',
        api.POST('/portal/link', { params: { header: { 'idempotency-key': randomUUID() } }, body: { portalType: 'suwon', studentId: student.studentId, password: student.password } }),
      );
      owner.set(r.jobId, api);
      return [r.jobId];
    },
    read(jobId, header) {
      const api = owner.get(jobId);
      if (!api) throw new Error(`portal link job ${jobId} was not created by this family`);
      return statusRead('GET /portal/link/jobs/{jobId}', api.GET('/portal/link/jobs/{jobId}', { params: { path: { jobId }, header } }));
    },
    async finishedAt(ids) {
      const rows = await db.portalLinkJob.findMany({ where: { id: { in: [...ids] } }, select: { id: true, finishedAt: true } });
      return timestamps(rows.map((r) => ({ id: r.id, at: r.finishedAt })));
    },
  };
}

/**
 * `n` study questions of `userId` in a new topic, each with an AI explanation (a README text of
 * `docs`, up to 3,000 characters, tagged with its index): what memo-card extraction reads. Returns
 * the topic's id and each question's id and explanation version.
 */
export async function explainedQuestions(db: Db, userId: string, docs: readonly string[], n: number, topicName: string): Promise<{ topicId: string; questions: { id: string; version: Date }[] }> {
  const topic = await db.studyTopic.create({ data: { userId, name: topicName } });
  const out: { id: string; version: Date }[] = [];
  for (let i = 0; i < n; i++) {
    const q = await db.studyQuestion.create({ data: { userId, topicId: topic.id, question: `What does README ${i} describe?` } });
    const text = docs[i % docs.length]!.slice(0, 3_000);
    out.push({ id: q.id, version: (await writeExplanation(db, q.id, `${text}\n\n(bench ${i})`, 'ai'))! });
  }
  return { topicId: topic.id, questions: out };
}

/**
 * Memo-card extraction jobs of a new user over `n` explained questions ({@link explainedQuestions}):
 * POST /study/memo-card-jobs for question `i`, read at GET /study/memo-card-jobs/{jobId};
 * terminal completed, failed or skipped.
 */
export async function memoCardFamily(ctx: StackContext, n: number, tag: string): Promise<BenchFamily> {
  const { db, apiUrl } = ctx.stack;
  const user = await createUserWithToken(db, `bench-st-${ctx.runId}-${tag}`);
  const { questions } = await explainedQuestions(db, user.userId, ctx.docs, n, `bench ${tag}`);
  const api = createApiClient(apiUrl, user.token);
  return {
    name: 'memo-card jobs',
    resource: 'GET /study/memo-card-jobs/{jobId}',
    terminal: ['completed', 'failed', 'skipped'],
    failed: ['failed'],
    jobsPerCreate: 1,
    async create(i) {
      const q = questions[i % questions.length]!;
      const r = await ok('POST /study/memo-card-jobs', api.POST('/study/memo-card-jobs', { body: { sourceKind: 'study_question', sourceId: q.id } }));
      if (r.status !== 'enqueued') throw new Error(`POST /study/memo-card-jobs: question ${q.id} not enqueued: ${JSON.stringify(r)}`);
      return [r.jobId];
    },
    read: (jobId, header) => statusRead('GET /study/memo-card-jobs/{jobId}', api.GET('/study/memo-card-jobs/{jobId}', { params: { path: { jobId }, header } })),
    async finishedAt(ids) {
      const rows = await db.studyMemoCardJob.findMany({ where: { id: { in: [...ids] } }, select: { id: true, completedAt: true } });
      return timestamps(rows.map((r) => ({ id: r.id, at: r.completedAt })));
    },
  };
}
