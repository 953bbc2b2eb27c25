/**
 * Starts and signals a portal link job's workflow (PO-3, PO-5, DC-1, DC-4): workflow ID
 * `portal-link:<userId>:<keyHash>`, on the `jobs` queue with the search attributes
 * JobType=PORTAL_LINK, TargetId=<jobId>, UserId. Idempotent by workflow ID (a second start of the
 * same job is `already-running`, never a second run). Replaceable for crash tests.
 */
import type { Client } from '@temporalio/client';
import type { PortalLinkJob } from '@prisma/client';
import type { PortalConfig as Config } from '../../config/portal';
import { jobSearchAttributes } from '../../core/contracts';
import { startWorkflow, workflowRunState, type StartOutcome, type WorkflowRunState } from '../../core/workflow-start';
import {
  PORTAL_LINK_JOB_TYPE,
  portalLinkQueues,
  scrapeCallbackSignal,
  type PortalLinkKind,
  type PortalLinkPolicy,
  type PortalLinkWorkflowInput,
  type ScrapeCallback,
} from '../../domain/portal/contracts';

/** A committed job to start. */
export interface StartablePortalJob {
  jobId: string;
  userId: string;
  portalType: string;
  studentId: string;
  kind: PortalLinkKind;
  workflowId: string;
  createdAt: Date;
}

/** The start of a committed job row. */
export function startablePortalJobOf(job: PortalLinkJob): StartablePortalJob {
  return { jobId: job.id, userId: job.userId, portalType: job.portalType, studentId: job.studentId, kind: job.kind, workflowId: job.workflowId, createdAt: job.createdAt };
}

/** The link workflow's operations. */
export interface PortalLinkStarter {
  /**
   * Starts the job's workflow with `password` (null: a recovered start, which FAILS
   * PORTAL_CREDENTIALS_REQUIRED). @throws when Temporal is unreachable (the job stays QUEUED).
   */
  start(job: StartablePortalJob, password: string | null): Promise<StartOutcome>;
  /** PO-5 hands a verified callback to the job's workflow. @throws WorkflowNotFoundError when it is not running. */
  signalCallback(workflowId: string, callback: ScrapeCallback): Promise<void>;
  /** `running`, `closed` or `missing` (never started). */
  state(workflowId: string): Promise<WorkflowRunState>;
}

/** The link policy from config. */
export function portalLinkPolicy(config: Config): PortalLinkPolicy {
  return { scrapeTimeoutMs: config.portal.scrapeTimeoutMs, callbackDeadlineMs: config.portal.callbackDeadlineMs };
}

/** The Temporal-backed {@link PortalLinkStarter}. */
export function createTemporalPortalLinkStarter(client: Client, config: Config): PortalLinkStarter {
  const queues = portalLinkQueues(config.temporal.taskQueuePrefix);
  const policy = portalLinkPolicy(config);
  return {
    async start(job, password) {
      const input: PortalLinkWorkflowInput = {
        jobId: job.jobId,
        userId: job.userId,
        portalType: job.portalType,
        studentId: job.studentId,
        password,
        kind: job.kind,
        jobCreatedAt: job.createdAt.toISOString(),
        callbackUrl: config.portal.callbackUrl,
        queues,
        policy,
      };
      return startWorkflow(client, {
        workflowType: 'portalLinkWorkflow',
        workflowId: job.workflowId,
        taskQueue: queues.jobs,
        args: [input],
        reuse: 'reject-duplicate',
        searchAttributes: jobSearchAttributes({ jobType: PORTAL_LINK_JOB_TYPE, targetId: job.jobId, userId: job.userId }),
        memo: { portalLinkJobId: job.jobId },
        jobType: PORTAL_LINK_JOB_TYPE,
      });
    },
    async signalCallback(workflowId, callback) {
      await client.workflow.getHandle(workflowId).signal(scrapeCallbackSignal, callback);
    },
    state: (workflowId) => workflowRunState(client, workflowId),
  };
}
