/**
 * What the cluster tests share: the running cluster (started by global-setup.ts, driven through its
 * control API), HTTP calls that fail over between the API processes like a retrying client, one
 * driver per family's main job, and the checks "every job terminal" and "nothing ran twice"
 * (projection rows per job and workflow runs per workflow ID, through the UserId search attribute).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import { loadConfig } from '../../src/families';
import { createUserWithToken } from '../../src/auth/tokens';
import { ensureCompany, setMember } from '../../src/core/companies';
import { temporalDataConverter } from '../../src/crypto/payload-codec';
import { createPrisma } from '../../src/db/client';
import { controlClient, type ControlClient, type ControlEndpoint } from '../../scripts/cluster/control';
import type { ClusterState } from '../../scripts/cluster/cluster';
import { SEED_STUDENTS } from '../support/portal-seed';
import { pollUntil } from '../support/poll';

/** A test's handle on the cluster. */
export interface ClusterContext {
  control: ControlClient;
  state: ClusterState;
  db: PrismaClient;
  client: Client;
  /** The cluster's data converter (its payload codec keys): histories decode with it. */
  dataConverter: ReturnType<typeof temporalDataConverter>;
  /** Base URLs of the API processes, in order. */
  apis: string[];
  /** HTTP status → how many answers had it (every call through {@link request}). */
  statuses: Map<number, number>;
  /** Answers with status ≥ 500 other than 503-with-Retry-After, for the error message. */
  badAnswers: string[];
  close(): Promise<void>;
}

/** Connects to the cluster of this jest run (CLUSTER_STATE_FILE from global-setup.ts). */
export async function clusterContext(): Promise<ClusterContext> {
  const file = process.env.CLUSTER_STATE_FILE;
  if (!file) throw new Error('CLUSTER_STATE_FILE is not set: run through jest.cluster.config.js (npm run test:cluster)');
  const { control: endpoint } = JSON.parse(readFileSync(file, 'utf8')) as { control: ControlEndpoint };
  const control = controlClient(endpoint);
  const state = await control.state();
  const config = loadConfig({ ...state.serviceEnv });
  const db = createPrisma(state.databaseUrl, { poolMax: 4 });
  const connection = await Connection.connect({ address: state.temporalAddress });
  const dataConverter = temporalDataConverter(config.temporal.payloadCodec);
  const client = new Client({ connection, namespace: state.namespace, dataConverter });
  const apis = state.processes.filter((p) => p.kind === 'api').map((p) => p.endpoint!);
  return {
    control, state, db, client, dataConverter, apis, statuses: new Map(), badAnswers: [],
    async close() {
      await connection.close();
      await db.$disconnect();
    },
  };
}

/** Options of {@link request}. */
export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Index of the API process to try first (the others follow in turn). */
  api?: number;
  /** Bound on retries, ms (default 180 000). */
  timeoutMs?: number;
}

/**
 * One API call as a retrying client makes it: a refused or cut connection, or a 503, is retried on
 * the next API process (after Retry-After, at most 2 s); any other answer is returned.
 * @throws Error when no API answered within the bound.
 */
export async function request(ctx: ClusterContext, path: string, o: RequestOptions = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const deadline = Date.now() + (o.timeoutMs ?? 180_000);
  let i = o.api ?? 0;
  let last = '';
  for (;;) {
    const base = ctx.apis[i % ctx.apis.length]!;
    try {
      const res = await fetch(`${base}${path}`, {
        method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
        headers: { ...(o.body === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers },
        ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      ctx.statuses.set(res.status, (ctx.statuses.get(res.status) ?? 0) + 1);
      const retryAfter = res.headers.get('retry-after');
      if (res.status >= 500 && !(res.status === 503 && retryAfter)) ctx.badAnswers.push(`${res.status} ${path}: ${text.slice(0, 300)}`);
      if (res.status !== 503) return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      last = `503 ${text.slice(0, 200)}`;
      await sleep(Math.min(2_000, Number(retryAfter ?? 1) * 1000));
    } catch (err) {
      last = `${base}: ${(err as Error).message} ${String((err as { cause?: { code?: string } }).cause?.code ?? '')}`;
      await sleep(200);
    }
    if (Date.now() > deadline) throw new Error(`${path}: no API answered within the bound; last: ${last}`);
    i++;
  }
}

/** Like {@link request}, but only `expected` is an acceptable status. */
export async function expectStatus(ctx: ClusterContext, expected: number, path: string, o: RequestOptions = {}): Promise<Record<string, unknown>> {
  const r = await request(ctx, path, o);
  if (r.status !== expected) throw new Error(`${o.method ?? (o.body === undefined ? 'GET' : 'POST')} ${path} → ${r.status} ${JSON.stringify(r.json)} (expected ${expected})`);
  return r.json;
}

/** A user with a bearer token (created in the projection database, like `npm run user:create`). */
export async function newUser(ctx: ClusterContext, label: string): Promise<{ userId: string; auth: Record<string, string> }> {
  const u = await createUserWithToken(ctx.db, `${label}-${randomUUID().slice(0, 8)}`);
  return { userId: u.userId, auth: { authorization: `Bearer ${u.token}` } };
}

/** A started job of any family, and how to tell its projection's state. */
export interface StartedJob {
  family: 'scraps' | 'ai-runs' | 'portal' | 'study';
  /** async_jobs ids (scraps, study) or the family's own row id (ai_runs, portal_link_jobs). */
  ids: string[];
  userId: string;
  /** The bearer header of that user (reads of the job go through it). */
  auth?: Record<string, string>;
}

/** Distinct scrap text number `i` of run `tag`. */
export function scrapText(tag: string, i: number): string {
  return `# Cluster note ${i}\n\nPartial indexes store only the rows that match their predicate; B-tree keys stay sorted.\n\n${tag} ${i}`;
}

/** SAN-7: POST /scraps → its two async jobs. */
export async function startScrap(ctx: ClusterContext, user: { userId: string; auth: Record<string, string> }, text: string, api = 0): Promise<StartedJob> {
  const r = await expectStatus(ctx, 202, '/scraps', { body: { content: text }, headers: user.auth, api });
  return { family: 'scraps', ids: [String(r.analysisJobId), String(r.refineJobId)], userId: user.userId };
}

/** An HR member of a fresh company (AR-1 needs a company member). */
export async function newCompanyMember(ctx: ClusterContext): Promise<{ userId: string; auth: Record<string, string>; companyId: string }> {
  const user = await newUser(ctx, 'cluster-hr');
  const companyId = await ensureCompany(ctx.db, `cluster-${randomUUID().slice(0, 8)}`);
  await setMember(ctx.db, companyId, user.userId, 'HR_MANAGER');
  return { ...user, companyId };
}

/** AR-1: POST /api/v1/ai-runs (a fresh Idempotency-Key, kept for retries) → the run. */
export async function startAiRun(ctx: ClusterContext, hr: { userId: string; auth: Record<string, string>; companyId: string }, text: string, api = 0): Promise<StartedJob> {
  const r = await expectStatus(ctx, 202, '/api/v1/ai-runs', { body: { companyId: hr.companyId, text }, headers: { ...hr.auth, 'idempotency-key': randomUUID() }, api });
  return { family: 'ai-runs', ids: [String(r.aiRunId)], userId: hr.userId };
}

/** PO-1: a fresh user links seeded student `i` (POST /portal/link, Idempotency-Key) → the link job. */
export async function startPortalLink(ctx: ClusterContext, i: number, api = 0): Promise<StartedJob> {
  const user = await newUser(ctx, 'cluster-po');
  const students = Object.values(SEED_STUDENTS);
  const s = students[i % students.length]!;
  const r = await expectStatus(ctx, 202, '/portal/link', { body: { portalType: 'suwon', studentId: s.studentId, password: s.password }, headers: { ...user.auth, 'idempotency-key': randomUUID() }, api });
  return { family: 'portal', ids: [String(r.jobId)], userId: user.userId, auth: user.auth };
}

/** ST: a question in a focused topic of `user` → its STUDY_EXPLANATION async job. */
export async function startStudyQuestion(ctx: ClusterContext, user: { userId: string; auth: Record<string, string> }, topicId: string, i: number, api = 0): Promise<StartedJob> {
  const r = await expectStatus(ctx, 201, `/study/topics/${topicId}/questions`, { body: { question: `Why does a partial index stay small? (${i} ${randomUUID().slice(0, 6)})` }, headers: user.auth, api });
  return { family: 'study', ids: [String(r.explanationJobId)], userId: user.userId };
}

/** A focused study topic of `user`. */
export async function newTopic(ctx: ClusterContext, user: { auth: Record<string, string> }): Promise<string> {
  const t = await expectStatus(ctx, 201, '/study/topics', { body: { name: `Indexes ${randomUUID().slice(0, 6)}` }, headers: user.auth });
  await expectStatus(ctx, 200, `/study/topics/${String(t.topicId)}/focus`, { method: 'PUT', body: { focused: true }, headers: user.auth });
  return String(t.topicId);
}

const DONE: Record<StartedJob['family'], readonly string[]> = { scraps: ['COMPLETED', 'FAILED'], study: ['COMPLETED', 'FAILED'], 'ai-runs': ['SUCCEEDED', 'FAILED'], portal: ['SUCCEEDED', 'FAILED'] };
const OK: Record<StartedJob['family'], string> = { scraps: 'COMPLETED', study: 'COMPLETED', 'ai-runs': 'SUCCEEDED', portal: 'SUCCEEDED' };

/** Status of every projection row of `jobs`, keyed `<family>:<id>`, read from the database. */
export async function projectionStatuses(ctx: ClusterContext, jobs: StartedJob[]): Promise<Map<string, string>> {
  const ids = (f: StartedJob['family']) => jobs.filter((j) => j.family === f).flatMap((j) => j.ids);
  const out = new Map<string, string>();
  const asyncIds = [...ids('scraps'), ...ids('study')];
  for (const r of await ctx.db.asyncJob.findMany({ where: { jobId: { in: asyncIds } }, select: { jobId: true, status: true, jobType: true } })) {
    out.set(`${r.jobType === 'STUDY_EXPLANATION' ? 'study' : 'scraps'}:${r.jobId}`, r.status);
  }
  for (const r of await ctx.db.aiRun.findMany({ where: { id: { in: ids('ai-runs') } }, select: { id: true, status: true } })) out.set(`ai-runs:${r.id}`, r.status);
  for (const r of await ctx.db.portalLinkJob.findMany({ where: { id: { in: ids('portal') } }, select: { id: true, status: true } })) out.set(`portal:${r.id}`, r.status);
  return out;
}

/**
 * Waits (bounded, generous: a loaded 2-core machine) until every job is terminal, then checks each
 * ended successfully; returns the counts by status.
 * @throws with the unfinished or failed jobs.
 */
export async function expectAllSucceeded(ctx: ClusterContext, jobs: StartedJob[], timeoutMs = 600_000, accepted: (key: string) => Promise<boolean> = async () => false): Promise<Record<string, number>> {
  const expected = jobs.flatMap((j) => j.ids.map((id) => `${j.family}:${id}`));
  const statuses = await pollUntil(
    () => projectionStatuses(ctx, jobs).catch(() => new Map<string, string>()),
    (m) => expected.every((k) => { const s = m.get(k); return s !== undefined && DONE[k.split(':')[0] as StartedJob['family']].includes(s); }),
    { describe: `${expected.length} jobs to be terminal`, timeoutMs, intervalMs: 1000, maxIntervalMs: 3000 },
  );
  const notOk: string[] = [];
  for (const k of expected) if (statuses.get(k) !== OK[k.split(':')[0] as StartedJob['family']] && !(await accepted(k))) notOk.push(k);
  if (notOk.length > 0) throw new Error(`${notOk.length} jobs did not succeed: ${(await failureDetails(ctx, notOk.slice(0, 10))).join('; ')}`);
  const counts: Record<string, number> = {};
  for (const s of statuses.values()) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

/**
 * Workflow runs per workflow ID of the users' job workflows (UserId search attribute), once
 * visibility shows at least `atLeast` closed ones; a workflow ID with two runs means a job ran twice.
 */
export async function runsPerWorkflow(ctx: ClusterContext, userIds: string[], atLeast: number): Promise<Map<string, number>> {
  const query = `(${[...new Set(userIds)].map((u) => `UserId="${u}"`).join(' OR ')}) AND ExecutionStatus != "Running"`;
  return pollUntil(
    async () => {
      const runs = new Map<string, number>();
      for await (const w of ctx.client.workflow.list({ query })) runs.set(w.workflowId, (runs.get(w.workflowId) ?? 0) + 1);
      return runs;
    },
    (m) => [...m.values()].reduce((a, b) => a + b, 0) >= atLeast,
    { describe: `visibility to list ${atLeast} closed job workflows`, timeoutMs: 180_000, intervalMs: 1000, maxIntervalMs: 5000 },
  );
}

/** Workflow IDs among `runs` with more than one run. */
export const ranTwice = (runs: Map<string, number>) => [...runs].filter(([, n]) => n > 1).map(([id, n]) => `${id} × ${n}`);

/** Brings every process of the cluster back (a test that fails midway must not break the next). */
export async function healCluster(ctx: ClusterContext): Promise<void> {
  await ctx.control.call('/heal', {});
  ctx.state = await ctx.control.state();
  ctx.apis = ctx.state.processes.filter((p) => p.kind === 'api').map((p) => p.endpoint!);
}

/**
 * Projection rows that exist twice for one job: async_jobs per (target, job type) of the users,
 * and more ai_runs / portal_link_jobs than the burst started. Empty when nothing was duplicated.
 */
export async function duplicateRows(ctx: ClusterContext, jobs: StartedJob[]): Promise<string[]> {
  const users = [...new Set(jobs.map((j) => j.userId))];
  const out: string[] = [];
  const groups = await ctx.db.asyncJob.groupBy({ by: ['targetId', 'jobType'], where: { userId: { in: users } }, _count: { _all: true } });
  for (const g of groups) if (g._count._all > 1) out.push(`async_jobs ${g.jobType} ${g.targetId} × ${g._count._all}`);
  const started = (f: StartedJob['family']) => jobs.filter((j) => j.family === f).length;
  const runs = await ctx.db.aiRun.count({ where: { actorUserId: { in: users } } });
  if (runs > started('ai-runs')) out.push(`ai_runs: ${runs} rows for ${started('ai-runs')} runs`);
  const links = await ctx.db.portalLinkJob.count({ where: { userId: { in: users } } });
  if (links > started('portal')) out.push(`portal_link_jobs: ${links} rows for ${started('portal')} jobs`);
  return out;
}

/** `<family>:<id>` keys → the failed rows' error code and message, for an assertion's message. */
async function failureDetails(ctx: ClusterContext, keys: string[]): Promise<string[]> {
  return Promise.all(keys.map(async (k) => {
    const [family, id] = k.split(':') as [StartedJob['family'], string];
    if (family === 'scraps' || family === 'study') {
      const r = await ctx.db.asyncJob.findUnique({ where: { jobId: id } });
      return `${k} ${r?.status} ${r?.errorMessage ?? ''}`;
    }
    const r = family === 'portal' ? await ctx.db.portalLinkJob.findUnique({ where: { id } }) : await ctx.db.aiRun.findUnique({ where: { id } });
    return `${k} ${r?.status} ${JSON.stringify(r).slice(0, 600)}`;
  }));
}
