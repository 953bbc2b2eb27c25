/**
 * Contracts of the portal-link family (PO-1 … PO-10) shared by the API, the workflow and the
 * activities of three task queues: the job type, the family's own `portal` queue (DC-2), the
 * workflow ID (DC-1), the workflow input, the callback signal, and the activity interfaces each
 * queue implements. Workflow-safe: no I/O.
 */
import { defineSignal } from '@temporalio/workflow';
import { idempotentWorkflowId, ownTaskQueue } from '../../core/contracts';
import type { PortalLinkJobStatus } from './job-state';

/** The PO job type (search attribute JobType, workflow-ID prefix `portal-link:`). Not an async_jobs job. */
export const PORTAL_LINK_JOB_TYPE = 'PORTAL_LINK';

/** Logical name of the family's own task queue (DC-2), declared by the family's manifest (src/families/portal.ts). */
export const PORTAL_QUEUE = 'portal';

/** PO-1 LINK when the user has no link for the portal yet, REFRESH otherwise. */
export type PortalLinkKind = 'LINK' | 'REFRESH';

/** Task queues a link job uses: projection writes and post-processing on `jobs`, the scrape on `portal`. */
export interface PortalLinkQueues {
  jobs: string;
  portal: string;
}

/** The deployed queues under `prefix` (TEMPORAL_TASK_QUEUE_PREFIX). */
export function portalLinkQueues(prefix = ''): PortalLinkQueues {
  return { jobs: `${prefix}jobs`, portal: ownTaskQueue(PORTAL_QUEUE, prefix) };
}

/** DC-1/PO-1 workflow ID of a link job, `portal-link:<userId>:<keyHash>` (SHA-256 of the Idempotency-Key). */
export function portalLinkWorkflowId(userId: string, keyHash: string): string {
  return idempotentWorkflowId(PORTAL_LINK_JOB_TYPE, userId, keyHash);
}

/** Object key of a job's result: `<prefix><jobId>/<attempt>.json` (PO-6 the job's own scope is `<prefix><jobId>/`). */
export function portalResultKey(prefix: string, jobId: string, attempt: number): string {
  return `${prefix}${jobId}/${attempt}.json`;
}

/** Timeouts of a link job, from config (PORTAL_*), passed in so the workflow stays config-free. */
export interface PortalLinkPolicy {
  /** Whole-scrape deadline (startToCloseTimeout of the scrape activity), ms. */
  scrapeTimeoutMs: number;
  /** How long the workflow waits for the callback after the scrape began, ms (then CALLBACK_TIMEOUT). */
  callbackDeadlineMs: number;
}

/**
 * Input of the link workflow. `password` exists only here and in the scrape activity's input
 * (Temporal payloads, encrypted by the payload codec): never in PostgreSQL, never logged. It is
 * null when the reconciler recovered a start whose request is gone (the job then FAILS
 * PORTAL_CREDENTIALS_REQUIRED).
 */
export interface PortalLinkWorkflowInput {
  jobId: string;
  userId: string;
  portalType: string;
  studentId: string;
  password: string | null;
  kind: PortalLinkKind;
  /** The job row's created_at (ISO 8601): a result scraped before it is ignored (PO-9). */
  jobCreatedAt: string;
  /** Where the scraper posts its signed callback (config PORTAL_CALLBACK_URL), passed on to the scrape activity. */
  callbackUrl: string;
  queues: PortalLinkQueues;
  policy: PortalLinkPolicy;
}

/** What the workflow returns. */
export interface PortalLinkWorkflowResult {
  jobId: string;
  status: 'SUCCEEDED' | 'FAILED';
  errorCode: string | null;
}

/**
 * PO-5 the callback, as the API hands it to the workflow after verifying its signature and scope:
 * a success with the result object's key (inside the job's scope) and its SHA-256 when given, or a
 * failure with the scraper's code and message. `postProcessing` true: the API moved the job
 * RUNNING → POST_PROCESSING with this key and checksum in the statement that recorded the callback
 * (committed only once this signal was delivered); absent (an API without that move), the workflow
 * makes the move itself.
 */
export type ScrapeCallback =
  | { status: 'SUCCEEDED'; attempt: number; resultKey: string; sha256: string | null; requestId: string | null; postProcessing?: boolean }
  | { status: 'FAILED'; attempt: number; errorCode: string; errorMessage: string; requestId: string | null };

/** PO-5/PO-7 signal carrying a verified callback; a repeat for an attempt already seen is ignored. */
export const scrapeCallbackSignal = defineSignal<[ScrapeCallback]>('scrapeCallback');

/** Input of the scrape activity on the `portal` queue. */
export interface ScrapePortalInput {
  jobId: string;
  userId: string;
  portalType: string;
  studentId: string;
  password: string;
  /** Where to post the signed callback (config PORTAL_CALLBACK_URL). */
  callbackUrl: string;
}

/** What the scrape activity returns once its callback was accepted (2xx). */
export interface ScrapePortalOutput {
  resultKey: string;
  sha256: string;
  /** The activity attempt that wrote the object (the key's `<attempt>`). */
  attempt: number;
}

/**
 * Activities of the `portal` queue (src/activities/portal/scrape.ts). Failure types (src/domain/portal/
 * failures.ts): PORTAL_CREDENTIALS_INVALID and PORTAL_MARKUP_UNEXPECTED non-retryable; portal
 * outages and expired sessions retryable within the activity's retry policy.
 */
export interface PortalScrapeActivities {
  scrapePortal(input: ScrapePortalInput): Promise<ScrapePortalOutput>;
}

/** Input of post-processing (PO-6, PO-8 … PO-10). */
export interface ApplyScrapeResultInput {
  jobId: string;
  userId: string;
  portalType: string;
  resultKey: string;
  sha256: string | null;
  /** The job's created_at (ISO 8601), PO-9. */
  jobCreatedAt: string;
}

/** PO-4 the student summary a SUCCEEDED job answers on `/summary` (stored on the job row). */
export interface PortalStudentSummary {
  studentId: string;
  name: string;
  admissionYear: number;
  department: string;
  major: string;
  doubleMajor: string | null;
  enrollmentStatus: string;
  gradeLevel: number;
  /** Credits the student earned, recomputed from student_courses (retakes once, corrections win). */
  creditsEarned: number;
  gpa: number | null;
  semesters: number;
  courses: number;
  designatedCourses: number;
  /** scrapedAt of the result the student's data now reflects (ISO 8601). */
  dataAsOf: string;
}

/** Summary of an applied (or ignored-as-older) result. */
export interface ApplyScrapeResultOutput {
  /** The student's summary after this job (the stored data when the result was ignored as older). */
  summary: PortalStudentSummary;
  applied: boolean;
  /** Why nothing was applied, e.g. `older-than-job` (PO-9). */
  ignoredReason: string | null;
  semesters: number;
  courses: number;
  designatedCoursesVersion: number;
}

/** A link job's state after a projection write (PO-2): whether this call moved the row, and its status and error code now. */
export interface PortalJobState {
  moved: boolean;
  status: PortalLinkJobStatus;
  errorCode: string | null;
}

/**
 * Post-processing activities on the `jobs` queue (src/activities/portal/post-process.ts): read the
 * object (C16), camelize + validate (C17), apply in one transaction under the student lock (C18).
 * `applyScrapeResultAndSucceed` also moves the job POST_PROCESSING → SUCCEEDED (with the summary)
 * in that transaction, and applies nothing when the job is no longer post-processing.
 */
export interface PortalPostProcessActivities {
  applyScrapeResult(input: ApplyScrapeResultInput): Promise<ApplyScrapeResultOutput>;
  applyScrapeResultAndSucceed(input: ApplyScrapeResultInput): Promise<PortalJobState>;
}
