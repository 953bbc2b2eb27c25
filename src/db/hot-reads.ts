/**
 * The API's hot read paths over `pg` directly, bypassing Prisma.
 *
 * Where: the bearer-token lookup of every authenticated request (src/api/auth.ts, behind the token
 * cache of src/auth/token-cache.ts), the job read of `GET /async-jobs/{id}` (SAN-5), the
 * version reads of its long poll (src/db/job-changes.ts), and the replay fast path of idempotent
 * creates: the Idempotency-Key record, the caller's company role (src/core/replay-answers.ts,
 * src/core/member-cache.ts) and a family's fixed read-only statements ({@link HotReads.row}): the
 * replayed or just created resource, and the AI run of `GET /api/v1/ai-runs/{id}` with its details.
 * Nothing else: every write, every transaction and every other read stays on Prisma.
 * Why: these reads are the API's most frequent requests, and Prisma's query compiler and client
 * cost about 0.9 ms of CPU per query against about 0.16 ms for the same statement through `pg`
 * (under a polling load Prisma took 57 % of the API's CPU; docs/benchmarks.md). The statements
 * are fixed, read-only and typed here; the rows are the same columns Prisma maps (snake_case aliased
 * to the model's camelCase names), so the API's answers do not change.
 *
 * The queries run on the pool under the app's Prisma client when it has one (src/db/client.ts
 * `pgPoolOf`), so the process keeps one connection budget (a pool of 1 against the embedded
 * PGlite). With `prepared` they are named prepared statements (parsed and planned once per
 * connection: about half of PostgreSQL's CPU per read saved); without, unnamed, as the embedded
 * database needs (its wire front shares one session between connections, where names collide).
 */
import type { QueryResultRow } from 'pg';
import type { CompanyRole, JobStatus, JobType } from '@prisma/client';
import { createReadBatcher } from './read-batcher';
import { createReadCoalescer } from './read-coalescer';

/** An `async_jobs` row as `GET /async-jobs/{id}` shows it (SAN-5; the owner is the query's filter). */
export interface JobStatusRow {
  jobId: string;
  jobType: JobType;
  targetId: string;
  status: JobStatus;
  errorMessage: string | null;
  /** Why a COMPLETED job applied no result (the core's job result codes), else null. */
  resultCode: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What identifies one state of a job for its ETag and for the long poll: status and updated_at. */
export interface JobVersionRow {
  jobId: string;
  status: JobStatus;
  updatedAt: Date;
}

/**
 * The typed hot reads; every method is one statement (job reads of one event-loop turn share one) and rejects only with the driver's error (an
 * outage or an exhausted pool is answered 503 by the API's error handler, src/db/unavailable.ts).
 */
export interface HotReads {
  /** The job `jobId` when it belongs to `userId`, else null (another user's job does not exist for them). */
  jobForOwner(jobId: string, userId: string): Promise<JobStatusRow | null>;
  /** The owner of the unrevoked token whose SHA-256 hex is `tokenHash` (`api_tokens.revoked_at IS NULL`), else null. */
  userIdForTokenHash(tokenHash: string): Promise<string | null>;
  /** Current versions of the given jobs (missing ones are absent from the map); at most a few thousand ids per call. */
  jobVersions(jobIds: readonly string[]): Promise<Map<string, JobVersionRow>>;
  /** The Idempotency-Key record of (scope, operation, key hash), answered or not, expired or not; null when there is none. */
  idempotencyRecord(scopeId: string, operation: string, keyHash: string): Promise<IdempotencyRecordRow | null>;
  /** The role of `userId` in `companyId`, null when not a member. */
  memberRole(companyId: string, userId: string): Promise<CompanyRole | null>;
  /**
   * The first row of a fixed read-only statement of a family (its replayed resource, a duplicate
   * check, a status read), prepared under `name` when prepared statements are on; null when there is none. The
   * statement's text must be a constant per name. Identical reads (name and values) that overlap in
   * time share statements (src/db/read-coalescer.ts): each is still answered by a statement that
   * started after it was called, with its own shallow copy of the row.
   */
  row<R extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<R | null>;
}

/** An `idempotency_records` row as the replay fast path reads it (src/core/idempotency.ts). */
export interface IdempotencyRecordRow {
  id: string;
  requestHash: string;
  /** Top-level field name → SHA-256 hex (jsonb, parsed by the driver). */
  fieldHashes: unknown;
  statusCode: number | null;
  resourceType: string | null;
  resourceId: string | null;
  expiresAt: Date;
}

/** Anything that runs a parameterised query: a `pg.Pool` or `pg.Client`. */
export interface Queryable {
  query<R extends QueryResultRow>(config: { text: string; values: unknown[]; name?: string }): Promise<{ rows: R[] }>;
}

const JOB_FOR_OWNER = `
  SELECT job_id AS "jobId", job_type AS "jobType", target_id AS "targetId", status,
         error_message AS "errorMessage", result_code AS "resultCode", created_at AS "createdAt", updated_at AS "updatedAt"
    FROM async_jobs
   WHERE job_id = $1 AND user_id = $2`;

/**
 * {@link JOB_FOR_OWNER} for many jobs at once, by primary key (an index scan whatever the number of
 * ids); the owner is compared by the caller, so another user's job is never answered.
 */
const JOBS_BY_IDS = `
  SELECT job_id AS "jobId", user_id AS "userId", job_type AS "jobType", target_id AS "targetId", status,
         error_message AS "errorMessage", result_code AS "resultCode", created_at AS "createdAt", updated_at AS "updatedAt"
    FROM async_jobs
   WHERE job_id = ANY($1::uuid[])`;

/** Most jobs in one {@link JOBS_BY_IDS} statement. */
const JOB_BATCH_MAX = 128;

const USER_FOR_TOKEN = `SELECT user_id AS "userId" FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`;

const JOB_VERSIONS = `SELECT job_id AS "jobId", status, updated_at AS "updatedAt" FROM async_jobs WHERE job_id = ANY($1::uuid[])`;

const IDEMPOTENCY_RECORD = `
  SELECT id::text AS id, request_hash AS "requestHash", field_hashes AS "fieldHashes", status_code AS "statusCode",
         resource_type AS "resourceType", resource_id AS "resourceId", expires_at AS "expiresAt"
    FROM idempotency_records
   WHERE scope_id = $1::uuid AND operation = $2 AND key_hash = $3`;

const MEMBER_ROLE = `SELECT role FROM company_members WHERE company_id = $1::uuid AND user_id = $2::uuid`;

/** The hot reads over `db` (a pool shared with Prisma, or a small pool of its own); `prepared`: named statements. */
export function createHotReads(db: Queryable, opts: { prepared?: boolean } = {}): HotReads {
  const q = <R extends QueryResultRow>(name: string, text: string, values: unknown[]) =>
    db.query<R>(opts.prepared ? { name, text, values } : { text, values });
  const coalesced = createReadCoalescer<QueryResultRow>();
  // Job reads of one event-loop turn go out as one statement (src/db/read-batcher.ts): a single
  // read keeps its point query, several are one read by primary keys, filtered by owner here.
  const jobForOwner = createReadBatcher<{ jobId: string; userId: string }, JobStatusRow>(
    async (keys) => {
      if (keys.length === 1) {
        const { rows } = await q<JobStatusRow>('hot_job_for_owner', JOB_FOR_OWNER, [keys[0]!.jobId, keys[0]!.userId]);
        return [rows[0]];
      }
      const { rows } = await q<JobStatusRow & { userId: string }>('hot_jobs_by_ids', JOBS_BY_IDS, [keys.map((k) => k.jobId)]);
      // PostgreSQL writes UUIDs in lower case; a request may spell its id in upper case.
      const byId = new Map(rows.map((r) => [r.jobId, r]));
      return keys.map((k) => {
        const row = byId.get(k.jobId.toLowerCase());
        if (!row || row.userId !== k.userId.toLowerCase()) return undefined;
        const { userId: _owner, ...job } = row;
        return job;
      });
    },
    { maxBatch: JOB_BATCH_MAX },
  );
  return {
    async jobForOwner(jobId, userId) {
      return (await jobForOwner({ jobId, userId })) ?? null;
    },
    async userIdForTokenHash(tokenHash) {
      const { rows } = await q<{ userId: string }>('hot_user_for_token', USER_FOR_TOKEN, [tokenHash]);
      return rows[0]?.userId ?? null;
    },
    async jobVersions(jobIds) {
      if (jobIds.length === 0) return new Map();
      const { rows } = await q<JobVersionRow>('hot_job_versions', JOB_VERSIONS, [jobIds]);
      return new Map(rows.map((r) => [r.jobId, r]));
    },
    async idempotencyRecord(scopeId, operation, keyHash) {
      const { rows } = await q<IdempotencyRecordRow>('hot_idempotency_record', IDEMPOTENCY_RECORD, [scopeId, operation, keyHash]);
      return rows[0] ?? null;
    },
    async memberRole(companyId, userId) {
      const { rows } = await q<{ role: CompanyRole }>('hot_member_role', MEMBER_ROLE, [companyId, userId]);
      return rows[0]?.role ?? null;
    },
    async row<R extends QueryResultRow>(name: string, text: string, values: unknown[]) {
      const key = `${name}\n${JSON.stringify(values)}`;
      return (await coalesced(key, async () => (await q<R>(name, text, values)).rows[0] ?? null)) as R | null;
    },
  };
}

/**
 * The version tag of a job state (the opaque part of its ETag): status and updated_at in
 * milliseconds (Prisma stores `timestamptz(3)`), e.g. `PROCESSING.mip3k0l4`. Every write to a job
 * row moves updated_at, so a different tag means a different answer.
 */
export function jobVersionTag(row: { status: string; updatedAt: Date }): string {
  return `${row.status}.${row.updatedAt.getTime().toString(36)}`;
}
