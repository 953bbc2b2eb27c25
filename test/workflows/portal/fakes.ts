/**
 * In-memory stand-ins for the portal-link activities, for workflow tests and history recording: a
 * tiny projection following the same PO-2 guards as the real one (with the list of transitions
 * taken), a scripted scraper that "calls back" by signalling the workflow as the API would, and a
 * scripted post-processing step.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, type WorkflowClient } from '@temporalio/client';
import { PORTAL_LINK_JOB_STATES, type PortalLinkJobStatus } from '../../../src/domain/portal/job-state';
import {
  scrapeCallbackSignal,
  type ApplyScrapeResultInput,
  type ApplyScrapeResultOutput,
  type PortalLinkPolicy,
  type PortalLinkWorkflowInput,
  type PortalStudentSummary,
  type ScrapeCallback,
  type ScrapePortalInput,
  type ScrapePortalOutput,
} from '../../../src/domain/portal/contracts';

/** What one scrape attempt does. */
export type ScrapeStep =
  /**
   * Writes the result and calls back SUCCEEDED (`callbacks` times: repeats test PO-7), then returns.
   * The API's move to POST_PROCESSING with the first callback (signal `postProcessing`) unless
   * `apiMoves` is false (an API without that move).
   */
  | { ok: true; callbacks?: number; apiMoves?: boolean }
  /** Returns as if the callback had been accepted, but no callback reaches the workflow. */
  | { silent: true }
  /** Calls back FAILED with `code`, then fails non-retryably. */
  | { callbackFailed: string }
  /** Throws a failure of `type` (retryable or not) whose details carry `code`. */
  | { fail: 'retryable' | 'non-retryable'; code: string };

/** What post-processing does: apply, or fail non-retryably with `code` (C16/C17/C18). */
export type ApplyStep = 'ok' | { fail: string };

export const TEST_POLICY: PortalLinkPolicy = { scrapeTimeoutMs: 60_000, callbackDeadlineMs: 10 * 60_000 };

export const SUMMARY: PortalStudentSummary = {
  studentId: '20231234', name: 'Kim Suwon', admissionYear: 2023, department: 'Computer Science', major: 'Computer Science',
  doubleMajor: null, enrollmentStatus: 'ENROLLED', gradeLevel: 3, creditsEarned: 78, gpa: 3.71, semesters: 5, courses: 26,
  designatedCourses: 2, dataAsOf: '2026-12-01T15:00:00.000Z',
};

/** A workflow input for `queues`. */
export function linkInput(queues: PortalLinkWorkflowInput['queues'], jobId: string, opts: { password?: string | null; policy?: PortalLinkPolicy } = {}): PortalLinkWorkflowInput {
  return {
    jobId, userId: '10000000-0000-4000-8000-000000000001', portalType: 'suwon', studentId: '20231234',
    password: opts.password === undefined ? 'hunter2-portal' : opts.password, kind: 'LINK', jobCreatedAt: '2026-12-01T15:00:00.000Z',
    callbackUrl: 'http://127.0.0.1:1/internal/scrape-results', queues, policy: opts.policy ?? TEST_POLICY,
  };
}

/** The fakes of one job. `client` delivers the scraper's callbacks as signals. */
export function fakePoActivities(client: WorkflowClient, scrapeSteps: ScrapeStep[], applyStep: ApplyStep = 'ok', initial: PortalLinkJobStatus = 'QUEUED') {
  const job = { status: initial, errorCode: null as string | null, resultKey: null as string | null, summary: null as PortalStudentSummary | null };
  const transitions: PortalLinkJobStatus[] = [];
  const scrapes: ScrapePortalInput[] = [];
  const applies: ApplyScrapeResultInput[] = [];
  const move = (to: PortalLinkJobStatus, patch: Partial<typeof job> = {}) => {
    const moved = PORTAL_LINK_JOB_STATES.sourcesOf(to).includes(job.status);
    if (moved) {
      Object.assign(job, { status: to }, patch);
      transitions.push(to);
    }
    return { moved, status: job.status, errorCode: job.errorCode };
  };
  const jobs = {
    markPortalJobRunning: async () => move('RUNNING'),
    markPortalJobPostProcessing: async (a: { resultKey: string }) => move('POST_PROCESSING', { resultKey: a.resultKey }),
    completePortalJob: async (a: { summary: PortalStudentSummary }) => move('SUCCEEDED', { summary: a.summary }),
    failPortalJob: async (a: { code: string }) => move('FAILED', { errorCode: a.code }),
    applyScrapeResult: async (a: ApplyScrapeResultInput): Promise<ApplyScrapeResultOutput> => {
      applies.push(a);
      if (applyStep !== 'ok') throw ApplicationFailure.create({ message: `scripted ${applyStep.fail}`, type: `POST_PROCESS_${applyStep.fail}`, nonRetryable: true, details: [{ code: applyStep.fail }] });
      return { summary: SUMMARY, applied: true, ignoredReason: null, semesters: 5, courses: 26, designatedCoursesVersion: 1 };
    },
    // Applied only while the job post-processes (the real one rolls back otherwise), SUCCEEDED in the same step.
    applyScrapeResultAndSucceed: async (a: ApplyScrapeResultInput) => {
      if (job.status !== 'POST_PROCESSING') return { moved: false, status: job.status, errorCode: job.errorCode };
      applies.push(a);
      if (applyStep !== 'ok') throw ApplicationFailure.create({ message: `scripted ${applyStep.fail}`, type: `POST_PROCESS_${applyStep.fail}`, nonRetryable: true, details: [{ code: applyStep.fail }] });
      return move('SUCCEEDED', { summary: SUMMARY });
    },
  };
  const signal = (cb: ScrapeCallback) => client.getHandle(Context.current().info.workflowExecution?.workflowId ?? '').signal(scrapeCallbackSignal, cb);
  const portal = {
    scrapePortal: async (input: ScrapePortalInput): Promise<ScrapePortalOutput> => {
      scrapes.push(input);
      const attempt = Context.current().info.attempt;
      const step = scrapeSteps[scrapes.length - 1] ?? { ok: true };
      const resultKey = `portal-results/${input.jobId}/${attempt}.json`;
      if ('ok' in step) {
        const apiMoves = step.apiMoves !== false;
        for (let i = 0; i < (step.callbacks ?? 1); i++) {
          // Like the API: the move with the first recorded callback of the attempt, repeats are duplicates.
          const moved = apiMoves && i === 0 && move('POST_PROCESSING', { resultKey }).moved;
          await signal({ status: 'SUCCEEDED', attempt, resultKey, sha256: 'a'.repeat(64), requestId: null, ...(moved ? { postProcessing: true } : {}) });
        }
        return { resultKey, sha256: 'a'.repeat(64), attempt };
      }
      if ('silent' in step) return { resultKey, sha256: 'a'.repeat(64), attempt };
      if ('callbackFailed' in step) {
        await signal({ status: 'FAILED', attempt, errorCode: step.callbackFailed, errorMessage: 'scripted failure', requestId: null });
        throw ApplicationFailure.create({ message: 'scripted', type: 'SCRAPE_REPORTED', nonRetryable: true, details: [{ code: step.callbackFailed }] });
      }
      throw ApplicationFailure.create({ message: `scripted ${step.code}`, type: `SCRIPTED_${step.code}`, nonRetryable: step.fail === 'non-retryable', details: [{ code: step.code }] });
    },
  };
  return { job, transitions, scrapes, applies, jobs, portal };
}
