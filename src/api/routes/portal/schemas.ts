/** Zod schemas and named OpenAPI examples of the portal-link routes (PO-1, PO-4, PO-5). */
import { z } from 'zod';
import type { PortalLinkJob } from '@prisma/client';
import { PORTAL_JOB_RESULT_CODES, PORTAL_LINK_JOB_STATUSES, type PortalJobResultCode } from '../../../domain/portal/job-state';
import { PROBLEM_MEDIA_TYPE, problemBody, ProblemSchema } from '../../problem';
import { RequestWebhookField } from '../../schemas';
import { pollingEndpoint } from '../../../services/portal/links';
import { PORTAL_TYPES } from '../../../services/portal/adapters/registry';
import { idempotencyKeyHeaders } from '../../schemas';

/** The `Idempotency-Key` request header, required (parsed by src/core/idempotency.ts: 400 when missing or malformed). */
export const PortalIdempotencyHeaders = idempotencyKeyHeaders({
  required: true,
  description: 'PO-1: the same key, portal type and student id answer the same job; another request → 409 IDEMPOTENCY_KEY_CONFLICT (C07).',
  example: '3f0c6a1e-8b2d-4e7f-9a10-5c6d7e8f9a0b',
});

/** PO-1 body of `POST /portal/link`. The password is used by the scraper only: never stored, never logged. */
export const PortalLinkBodySchema = z
  .strictObject({
    portalType: z
      .string()
      .min(1)
      .max(32)
      .meta({ enum: [...PORTAL_TYPES], description: 'the portal adapter; another type → 400 PORTAL_TYPE_UNSUPPORTED' }),
    studentId: z.string().regex(/^[A-Za-z0-9-]{1,32}$/, '1-32 letters, digits or hyphens').describe("the student's portal login id"),
    password: z.string().min(1).max(256).describe('the portal password: passed to the scraper in an encrypted workflow payload, never stored'),
    webhook: RequestWebhookField,
  })
  .meta({ examples: [{ portalType: 'suwon', studentId: '20231234', password: 'correct horse battery staple' }] });

/** PO-1 the 202 answer. */
export const PortalLinkAcceptedSchema = z.object({
  jobId: z.uuid(),
  status: z.literal('accepted'),
  kind: z.enum(['LINK', 'REFRESH']),
  pollingEndpoint: z.string(),
});

/** PO-4 the job view. */
export const PortalLinkJobSchema = z.object({
  jobId: z.uuid(),
  kind: z.enum(['LINK', 'REFRESH']),
  portalType: z.string(),
  studentId: z.string(),
  status: z.enum(PORTAL_LINK_JOB_STATUSES),
  errorCode: z.string().nullable().describe('set when FAILED, e.g. PORTAL_CREDENTIALS_INVALID, CALLBACK_TIMEOUT, C16, C17, C18'),
  errorMessage: z.string().nullable(),
  resultCode: z
    .enum(PORTAL_JOB_RESULT_CODES)
    .nullable()
    .describe("why a SUCCEEDED job applied no result: STALE_RESULT_IGNORED when the result was scraped before the job was created or before the student's current data (PO-9), so the data was left as it was; null otherwise"),
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  postProcessingAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  updatedAt: z.iso.datetime(),
});

/** PO-4 the job view of a row. */
export function portalLinkJobView(job: PortalLinkJob): z.infer<typeof PortalLinkJobSchema> {
  return {
    jobId: job.id,
    kind: job.kind,
    portalType: job.portalType,
    studentId: job.studentId,
    status: job.status,
    errorCode: job.errorCode,
    errorMessage: job.errorMessage,
    resultCode: job.resultCode as PortalJobResultCode | null,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    postProcessingAt: job.postProcessingAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    updatedAt: job.updatedAt.toISOString(),
  };
}

/** PO-4 the student summary (`/summary`). */
export const PortalStudentSummarySchema = z.object({
  jobId: z.uuid(),
  summary: z.object({
    studentId: z.string(),
    name: z.string(),
    admissionYear: z.number().int(),
    department: z.string(),
    major: z.string(),
    doubleMajor: z.string().nullable(),
    enrollmentStatus: z.string(),
    gradeLevel: z.number().int(),
    creditsEarned: z.number(),
    gpa: z.number().nullable(),
    semesters: z.number().int(),
    courses: z.number().int(),
    designatedCourses: z.number().int(),
    dataAsOf: z.string(),
  }),
});

/** PO-4 `/duration`. */
export const PortalJobDurationSchema = z.object({
  jobId: z.uuid(),
  status: z.enum(PORTAL_LINK_JOB_STATUSES),
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  postProcessingAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  elapsedMs: z.number().int().describe('created → finished, or until now while active'),
  queuedMs: z.number().int().nullable(),
  scrapeMs: z.number().int().nullable(),
  postProcessMs: z.number().int().nullable(),
  finished: z.boolean(),
});

/** 409 PORTAL_LINK_JOB_ACTIVE: the problem names the active job. */
export const ActiveJobProblemSchema = ProblemSchema.extend({
  activeJobId: z.uuid(),
  activeJobStatus: z.enum(PORTAL_LINK_JOB_STATUSES),
  pollingEndpoint: z.string(),
});

/** 409 PORTAL_LINK_JOB_NOT_SUCCEEDED: the problem carries the job's current status. */
export const NotSucceededProblemSchema = ProblemSchema.extend({
  jobStatus: z.enum(PORTAL_LINK_JOB_STATUSES),
  errorCode: z.string().nullable(),
});

/** PO-5 the callback answer (the same for a repeat). */
export const CallbackAcceptedSchema = z.object({ jobId: z.uuid(), attempt: z.number().int(), status: z.literal('accepted') });

const JOB = '8c1d2e3f-4a5b-4c6d-9e7f-8a9b0c1d2e3f';

/** Named examples, OpenAPI's `{ name: { summary, value } }`. */
export const PO_EXAMPLES = {
  accepted: { link: { summary: 'Accepted: a LINK job', value: { jobId: JOB, status: 'accepted', kind: 'LINK', pollingEndpoint: pollingEndpoint(JOB) } } },
  job: {
    running: {
      summary: 'RUNNING: the scraper is at work',
      value: { jobId: JOB, kind: 'LINK', portalType: 'suwon', studentId: '20231234', status: 'RUNNING', errorCode: null, errorMessage: null, resultCode: null, createdAt: '2026-12-01T15:00:00.000Z', startedAt: '2026-12-01T15:00:00.120Z', postProcessingAt: null, finishedAt: null, updatedAt: '2026-12-01T15:00:00.120Z' },
    },
    failed: {
      summary: 'FAILED: the portal rejected the credentials (new ones are needed; never retried)',
      value: { jobId: JOB, kind: 'REFRESH', portalType: 'suwon', studentId: '20231234', status: 'FAILED', errorCode: 'PORTAL_CREDENTIALS_INVALID', errorMessage: 'the portal rejected the student id or password', resultCode: null, createdAt: '2026-12-01T15:00:00.000Z', startedAt: '2026-12-01T15:00:00.120Z', postProcessingAt: null, finishedAt: '2026-12-01T15:00:01.010Z', updatedAt: '2026-12-01T15:00:01.010Z' },
    },
    staleIgnored: {
      summary: "SUCCEEDED without applying its result: scraped before the student's current data (PO-9), which stays as it was",
      value: { jobId: JOB, kind: 'REFRESH', portalType: 'suwon', studentId: '20231234', status: 'SUCCEEDED', errorCode: null, errorMessage: null, resultCode: 'STALE_RESULT_IGNORED', createdAt: '2026-12-01T15:00:00.000Z', startedAt: '2026-12-01T15:00:00.120Z', postProcessingAt: '2026-12-01T15:00:03.400Z', finishedAt: '2026-12-01T15:00:03.520Z', updatedAt: '2026-12-01T15:00:03.520Z' },
    },
  },
  problems: {
    active: {
      summary: '409: another link job of yours for this portal is active',
      value: { ...problemBody(409, 'PORTAL_LINK_JOB_ACTIVE', 'Portal Link Job Active', `a link job for this portal is already RUNNING (${JOB}); poll it, and send a new request once it has finished`), activeJobId: JOB, activeJobStatus: 'RUNNING', pollingEndpoint: pollingEndpoint(JOB) },
    },
    keyConflict: {
      summary: '409 (C07): the key was used with another request',
      value: { ...problemBody(409, 'IDEMPOTENCY_KEY_CONFLICT', 'Idempotency Key Conflict', 'the Idempotency-Key was used with another request: studentId differs'), errors: [{ path: 'body.studentId', message: 'differs from the first request with this key' }] },
    },
    notSucceeded: {
      summary: '409: the job has not SUCCEEDED (yet)',
      value: { ...problemBody(409, 'PORTAL_LINK_JOB_NOT_SUCCEEDED', 'Portal Link Job Not Succeeded', 'the job is RUNNING; its summary exists once it has SUCCEEDED'), jobStatus: 'RUNNING', errorCode: null },
    },
  },
} as const;

/** A problem+json response with a schema and named examples. */
export function problemWith<S extends z.ZodType>(schema: S, description: string, examples: object = {}) {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema, examples } } };
}

/** A JSON response with named examples. */
export function jsonWith<S extends z.ZodType>(schema: S, description: string, examples: object = {}) {
  return { description, content: { 'application/json': { schema, examples } } };
}
