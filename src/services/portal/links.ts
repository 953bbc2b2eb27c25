/**
 * The portal-link family's commands and reads (PO-1, PO-3, PO-4), for the routes:
 * - link: Idempotency-Key (scope = the user) → one job; the job row and the key's answer commit
 *   together, then the workflow starts by its ID (PO-3, SAN-4 pattern). With Temporal unavailable
 *   for the start, the job and the key's answer are deleted again and the request answers 503
 *   WORKFLOW_START_UNAVAILABLE: the client's retry with the same key brings the password again. A
 *   start lost otherwise (the process died) leaves the job QUEUED for the reconciler, which has no
 *   password and fails it PORTAL_CREDENTIALS_REQUIRED; a same-key replay of a QUEUED job starts it
 *   with the replayed password;
 * - reads: the job, its summary (only when SUCCEEDED) and its duration; another user's job is 404.
 *
 * The password is never stored: not in the job row, not in the idempotency record (it is left out of
 * the fingerprint: an unsalted SHA-256 of a password would be a brute-force oracle), only in the
 * workflow's encrypted input. Services throw DomainError; only the API maps them to HTTP.
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type PortalLinkJob, type PrismaClient } from '@prisma/client';
import type { PortalConfig as Config } from '../../config/portal';
import { DomainError } from '../../core/domain-error';
import type { WarnLog } from '../../core/after-commit';
import { idempotentCreate } from '../../core/idempotent-create';
import type { ReplayPath } from '../../core/replay-answers';
import type { HotReads } from '../../db/hot-reads';
import { checkRequestWebhook } from '../../core/webhook-requests';
import { PORTAL_LINK_JOB_STATES } from '../../domain/portal/job-state';
import { portalLinkWorkflowId, type PortalStudentSummary } from '../../domain/portal/contracts';
import { startablePortalJobOf, type PortalLinkStarter } from './starter';
import { PO_ERRORS, type PO_PROBLEMS } from '../../domain/portal/errors';

/** What the commands need. */
export interface PortalLinkDeps {
  db: PrismaClient;
  config: Config;
  starter: PortalLinkStarter;
  log: WarnLog;
  /** PO-1 the portal types an adapter exists for (the API answers 400 PORTAL_TYPE_UNSUPPORTED for others). */
  isPortalType: (type: string) => boolean;
  /** The replay fast path (the API's hot path); absent: every request takes the claim's transaction. */
  replays?: Pick<ReplayPath, 'answers' | 'reads'> | undefined;
}

/** Every column of `portal_link_jobs` under the model's names: the job as `db.portalLinkJob.findUnique` answers it. */
const PORTAL_LINK_JOB_COLUMNS = `
  id::text AS id, user_id::text AS "userId", portal_type AS "portalType", student_id AS "studentId", kind, status,
  error_code AS "errorCode", error_message AS "errorMessage", workflow_id AS "workflowId", result_key AS "resultKey",
  result_sha256 AS "resultSha256", summary, result_code AS "resultCode", created_at AS "createdAt",
  started_at AS "startedAt", post_processing_at AS "postProcessingAt", finished_at AS "finishedAt", updated_at AS "updatedAt"`;

/** {@link PORTAL_LINK_JOB_COLUMNS} of job `$1`. */
const PORTAL_LINK_JOB_ROW = `SELECT ${PORTAL_LINK_JOB_COLUMNS} FROM portal_link_jobs WHERE id = $1::uuid`;

/**
 * PO-1 one statement: the QUEUED job (LINK, or REFRESH when the user has a link to the portal),
 * unless the user has an active job for the portal: the one-active-job index's conflict (also one
 * committed meanwhile by a concurrent request) inserts nothing and returns no row. Answers the row as
 * `db.portalLinkJob.create` does; created_at and updated_at from this process's clock, as Prisma sets them.
 */
function insertJob(userId: string, body: PortalLinkBody, workflowId: string): Prisma.Sql {
  const now = new Date();
  return Prisma.sql`
    INSERT INTO portal_link_jobs (id, user_id, portal_type, student_id, kind, status, workflow_id, created_at, updated_at)
    SELECT ${randomUUID()}::uuid, ${userId}::uuid, ${body.portalType}, ${body.studentId},
           (CASE WHEN EXISTS (SELECT 1 FROM portal_links WHERE user_id = ${userId}::uuid AND portal_type = ${body.portalType})
                 THEN 'REFRESH' ELSE 'LINK' END)::"PortalLinkJobKind",
           'QUEUED', ${workflowId}, ${now}, ${now}
    ON CONFLICT (user_id, portal_type) WHERE status IN ('QUEUED', 'RUNNING', 'POST_PROCESSING') DO NOTHING
    RETURNING ${Prisma.raw(PORTAL_LINK_JOB_COLUMNS)}`;
}

/** Body of `POST /portal/link`. */
export interface PortalLinkBody {
  portalType: string;
  studentId: string;
  password: string;
  /** Per-request completion webhook URL (src/core/webhook-requests.ts). */
  webhook?: string | undefined;
}

/** Event source of a link job's terminal events (the prefix of the `portal_link_jobs` webhook trigger). */
export const PORTAL_LINK_WEBHOOK_SOURCE = 'portal_link_job';

/** Operation name of the Idempotency-Key records. */
export const PORTAL_LINK_OPERATION = 'portal.link';

/** Polling endpoint of a job (PO-1). */
export function pollingEndpoint(jobId: string): string {
  return `/portal/link/jobs/${jobId}`;
}

/** PO-1 409 PORTAL_LINK_JOB_ACTIVE: the user already has an active link job for the portal; the answer names it. */
export class PortalLinkActiveError extends DomainError {
  constructor(job: Pick<PortalLinkJob, 'id' | 'status'>) {
    super(
      'PORTAL_LINK_JOB_ACTIVE' satisfies keyof typeof PO_PROBLEMS,
      `a link job for this portal is already ${job.status} (${job.id}); poll it, and send a new request once it has finished`,
      { members: { activeJobId: job.id, activeJobStatus: job.status, pollingEndpoint: pollingEndpoint(job.id) } },
    );
  }
}

/** Result of {@link requestPortalLink}: the job (as stored now) and whether this was a replay of the key. */
export interface PortalLinkResult {
  job: PortalLinkJob;
  statusCode: number;
  replay: boolean;
}

async function activeJob(db: PrismaClient | Prisma.TransactionClient, userId: string, portalType: string) {
  return db.portalLinkJob.findFirst({
    where: { userId, portalType, status: { in: [...PORTAL_LINK_JOB_STATES.active] } },
    select: { id: true, status: true },
  });
}

/**
 * PO-1/PO-3: the link job of `body` for `userId` under Idempotency-Key `key` (scope: the user).
 * LINK when the user has no link to the portal yet, REFRESH otherwise. Same key + portal type +
 * student id → the same job and status code (its workflow started with this request's password if
 * the job is still QUEUED); another request under the key → 409 IDEMPOTENCY_KEY_CONFLICT (the
 * original's C07); another key while a job of the user for this portal is active → 409
 * PORTAL_LINK_JOB_ACTIVE naming that job (decided in the database by the partial unique index, so
 * two concurrent keys also make one job).
 * @throws DomainError PORTAL_TYPE_UNSUPPORTED, IDEMPOTENCY_KEY_CONFLICT, IDEMPOTENCY_KEY_IN_PROGRESS, WORKFLOW_START_UNAVAILABLE; PortalLinkActiveError.
 */
export async function requestPortalLink(deps: PortalLinkDeps, userId: string, key: string, body: PortalLinkBody): Promise<PortalLinkResult> {
  if (!deps.isPortalType(body.portalType)) {
    throw PO_ERRORS.problem('PORTAL_TYPE_UNSUPPORTED', `portal type "${body.portalType}" is not supported`);
  }
  // The password stays out of the fingerprint (see the module comment).
  const request = { portalType: body.portalType, studentId: body.studentId, webhook: body.webhook };
  const replays = deps.replays;
  try {
    const r = await idempotentCreate<PortalLinkJob>({
      db: deps.db,
      claim: { scopeId: userId, operation: PORTAL_LINK_OPERATION, key, request, ttlMs: deps.config.idempotency.ttlMs },
      statusCode: 202,
      resourceType: 'portal-link-job',
      ...(replays ? { replays: replays.answers, readReplayed: (jobId: string) => replays.reads.row<PortalLinkJob>('portal_link_job_replayed', PORTAL_LINK_JOB_ROW, [jobId]) } : {}),
      ...(body.webhook !== undefined ? { webhook: { source: PORTAL_LINK_WEBHOOK_SOURCE, userId, url: body.webhook }, beforeCreate: () => checkRequestWebhook(deps.db, { allowPrivate: deps.config.webhooks.allowPrivateUrls }, userId, body.webhook!) } : {}),
      keyHashTaken: async (tx, keyHash) =>
        (await tx.portalLinkJob.findUnique({ where: { workflowId: portalLinkWorkflowId(userId, keyHash) }, select: { id: true } })) !== null,
      async create(tx, keyHash) {
        const [job] = await tx.$queryRaw<PortalLinkJob[]>(insertJob(userId, body, portalLinkWorkflowId(userId, keyHash)));
        if (job) return job;
        const active = await activeJob(tx, userId, body.portalType);
        if (active) throw new PortalLinkActiveError(active);
        // The conflicting job finished between the insert and the read: the request may be sent again.
        throw PO_ERRORS.problem('SERVICE_UNAVAILABLE', 'an active link job for this portal finished meanwhile; retry');
      },
      idOf: (job) => job.id,
      read: (jobId) => deps.db.portalLinkJob.findUnique({ where: { id: jobId } }),
      start: {
        run: (job) => deps.starter.start(startablePortalJobOf(job), body.password),
        ids: (job) => ({ portalLinkJobId: job.id }),
        // PO-3: a replay of a job whose start was lost starts it now, with this request's password.
        onReplay: (job) => job.status === 'QUEUED',
        // Its start found Temporal unavailable: the job goes (503), so the retry brings the password again.
        remove: (tx, job) => tx.portalLinkJob.deleteMany({ where: { id: job.id, status: 'QUEUED' } }),
        log: deps.log,
      },
    });
    return { job: r.resource, statusCode: r.statusCode, replay: r.replay };
  } catch (err) {
    // Two keys at once: the loser's insert met the winner's row in the one-active-job index.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      const active = await activeJob(deps.db, userId, body.portalType);
      if (active) throw new PortalLinkActiveError(active);
    }
    throw err;
  }
}

/**
 * PO-4: the job `jobId` (a UUID) if it is the caller's, else 404 (another user's job does not exist
 * for them). With `reads` (the API's hot path) one `pg` read, else Prisma's.
 */
export async function readPortalLinkJob(db: PrismaClient, userId: string, jobId: string, reads?: Pick<HotReads, 'row'>): Promise<PortalLinkJob> {
  const job = reads
    ? await reads.row<PortalLinkJob>('portal_link_job_replayed', PORTAL_LINK_JOB_ROW, [jobId])
    : await db.portalLinkJob.findUnique({ where: { id: jobId } });
  if (!job || job.userId !== userId) throw PO_ERRORS.problem('NOT_FOUND', `portal link job ${jobId} not found`);
  return job;
}

/** PO-4 409 PORTAL_LINK_JOB_NOT_SUCCEEDED of `/summary` before SUCCEEDED; the answer carries the job's status and error code. */
export class PortalJobNotSucceededError extends DomainError {
  constructor(jobStatus: PortalLinkJob['status'], errorCode: string | null) {
    super('PORTAL_LINK_JOB_NOT_SUCCEEDED' satisfies keyof typeof PO_PROBLEMS, `the job is ${jobStatus}; its summary exists once it has SUCCEEDED`, {
      members: { jobStatus, errorCode },
    });
  }
}

/** The student summary of a SUCCEEDED job. @throws DomainError NOT_FOUND; PortalJobNotSucceededError. */
export async function readPortalJobSummary(db: PrismaClient, userId: string, jobId: string): Promise<{ job: PortalLinkJob; summary: PortalStudentSummary }> {
  const job = await readPortalLinkJob(db, userId, jobId);
  if (job.status !== 'SUCCEEDED' || job.summary === null) throw new PortalJobNotSucceededError(job.status, job.errorCode);
  return { job, summary: job.summary as unknown as PortalStudentSummary };
}

/** `/duration`: timestamps (ISO 8601) and elapsed times in ms; `elapsedMs` runs until now while the job is active. */
export interface PortalJobDuration {
  jobId: string;
  status: PortalLinkJob['status'];
  createdAt: string;
  startedAt: string | null;
  postProcessingAt: string | null;
  finishedAt: string | null;
  /** created → finished (or now). */
  elapsedMs: number;
  /** created → started (null until started). */
  queuedMs: number | null;
  /** started → post-processing (null until then). */
  scrapeMs: number | null;
  /** post-processing → finished (null until then). */
  postProcessMs: number | null;
  finished: boolean;
}

/** The duration view of a job at `now`. Pure. */
export function portalJobDuration(job: PortalLinkJob, now: Date = new Date()): PortalJobDuration {
  const t = (d: Date | null) => (d ? d.getTime() : null);
  const span = (a: Date | null, b: Date | null) => (a && b ? Math.max(0, b.getTime() - a.getTime()) : null);
  const end = job.finishedAt ?? now;
  return {
    jobId: job.id,
    status: job.status,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    postProcessingAt: job.postProcessingAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    elapsedMs: Math.max(0, end.getTime() - job.createdAt.getTime()),
    queuedMs: span(job.createdAt, job.startedAt),
    scrapeMs: span(job.startedAt, job.postProcessingAt),
    postProcessMs: span(job.postProcessingAt, job.finishedAt),
    finished: t(job.finishedAt) !== null,
  };
}
