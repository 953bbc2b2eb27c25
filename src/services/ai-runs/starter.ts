/**
 * Starts, signals and cancels a run's workflow (AR-4, AR-7, DC-1, DC-4): workflow ID
 * `ai-run:<companyId>:<keyHash>`, on the `jobs` queue with the search attributes JobType=AI_RUN,
 * TargetId=<runId>, UserId, CompanyId. Idempotent by workflow ID. Replaceable for crash tests.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AiRun } from '@prisma/client';
import type { AiRunsConfig as Config } from '../../config/ai-runs';
import { companySearchAttributes } from '../../core/contracts';
import { startWorkflow, workflowRunState, type StartOutcome } from '../../core/workflow-start';
import {
  AI_RUN_JOB_TYPE,
  aiRunQueues,
  retryAiRunSignal,
  type AiRunPolicy,
  type AiRunWorkflowInput,
  type RetryRequest,
} from '../../domain/ai-runs/contracts';

/** A committed run to start. */
export interface StartableRun {
  runId: string;
  companyId: string;
  userId: string;
  workflowId: string;
  locale: string | null;
  createdAt: Date;
  deadlineAt: Date;
}

/** The start of a committed run row. */
export function startableRunOf(run: AiRun): StartableRun {
  return { runId: run.id, companyId: run.companyId, userId: run.actorUserId, workflowId: run.workflowId, locale: run.locale, createdAt: run.createdAt, deadlineAt: run.deadlineAt ?? run.createdAt };
}

/** The run workflow's operations. */
export interface AiRunStarter {
  /** @throws when Temporal is unreachable (the run stays QUEUED with its sealed input; the reconciler starts it). */
  start(run: StartableRun, text: string): Promise<StartOutcome>;
  /** AR-4: lets the FAILED run's waiting workflow make attempt `req.attemptNumber`. @throws WorkflowNotFoundError when it is closed. */
  signalRetry(workflowId: string, req: RetryRequest): Promise<void>;
  /** Requests cancellation; a closed or unknown workflow is a no-op. */
  cancel(workflowId: string): Promise<void>;
  /** True when the workflow is running (waiting for a retry counts). */
  isOpen(workflowId: string): Promise<boolean>;
}

/** The run policy from config. */
export function aiRunPolicy(config: Config): AiRunPolicy {
  const a = config.aiRuns;
  return {
    maxAttempts: a.maxAttempts,
    callTimeoutMs: a.callTimeoutMs,
    heartbeatTimeoutMs: a.heartbeatTimeoutMs,
    retryInitialMs: a.retryInitialMs,
    retryMaxMs: a.retryMaxMs,
    retryWindowMs: a.retryWindowMs,
  };
}

/** The Temporal-backed {@link AiRunStarter}. */
export function createTemporalAiRunStarter(client: Client, config: Config): AiRunStarter {
  const queues = aiRunQueues(config.temporal.taskQueuePrefix);
  const policy = aiRunPolicy(config);
  return {
    async start(run, text) {
      const input: AiRunWorkflowInput = {
        runId: run.runId,
        companyId: run.companyId,
        userId: run.userId,
        text,
        locale: run.locale,
        referenceTime: run.createdAt.toISOString(),
        deadlineAt: run.deadlineAt.toISOString(),
        queues,
        policy,
        localWrites: true,
      };
      return startWorkflow(client, {
        workflowType: 'aiRunWorkflow',
        workflowId: run.workflowId,
        taskQueue: queues.jobs,
        args: [input],
        reuse: 'reject-duplicate',
        searchAttributes: companySearchAttributes({ jobType: AI_RUN_JOB_TYPE, targetId: run.runId, userId: run.userId, companyId: run.companyId }),
        memo: { aiRunId: run.runId },
        jobType: AI_RUN_JOB_TYPE,
      });
    },
    async signalRetry(workflowId, req) {
      await client.workflow.getHandle(workflowId).signal(retryAiRunSignal, req);
    },
    async cancel(workflowId) {
      try {
        await client.workflow.getHandle(workflowId).cancel();
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
    isOpen: async (workflowId) => (await workflowRunState(client, workflowId)) === 'running',
  };
}
