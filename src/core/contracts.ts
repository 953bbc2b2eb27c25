/**
 * Contracts of the job core, shared by the API, workflows and workers: job statuses (SAN-1),
 * task-queue names (DC-2), workflow-ID builders (DC-1) and search-attribute keys (DC-4). The job
 * types themselves are declared by the families (src/families). Workflow-safe: no I/O.
 */
import type { JobType as DbJobType } from '@prisma/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';

/** A job type: a value of the async_jobs `job_type` enum, declared by a family's manifest. */
export type JobType = DbJobType;

/** SAN-1 projection states. */
export const JOB_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Why a COMPLETED job applied no result, shown as `resultCode` in its job view (null: it applied
 * its result). `SUPERSEDED`: its target was written (by a person) after the job was enqueued, so
 * its compare-and-set on the target's version failed and nothing was changed.
 */
export const JOB_RESULT_CODES = ['SUPERSEDED'] as const;
export type JobResultCode = (typeof JOB_RESULT_CODES)[number];

/** Logical task queues (DC-2); the deployed name is `<prefix><name>`. */
export type QueueName = 'jobs' | 'ai' | 'github';
/** Resolved task-queue names, passed to workflows in their input so workflows stay config-free. */
export type TaskQueues = Record<QueueName, string>;

/** Builds the deployed task-queue names from the configured prefix (empty in production). */
export function taskQueues(prefix = ''): TaskQueues {
  return { jobs: `${prefix}jobs`, ai: `${prefix}ai`, github: `${prefix}github` };
}

/**
 * Deployed name of any declared task queue, `<prefix><name>` (e.g. `ai-runs`): the core's
 * or one a family's manifest declares (`queues`).
 */
export function ownTaskQueue(name: string, prefix = ''): string {
  return `${prefix}${name}`;
}

/**
 * Deployed name of declared queue `name` inside a job workflow, whose input names only the core's
 * queues: the prefix is the one of `queues.jobs` (e.g. a family's own queue of an async_jobs job).
 */
export function taskQueueOf(queues: Pick<TaskQueues, 'jobs'>, name: string): string {
  return ownTaskQueue(name, queues.jobs.slice(0, queues.jobs.length - 'jobs'.length));
}

/**
 * Task queue of the maintenance passes (the SAN-4 reconciler), `<prefix>maintenance`: served by its
 * own worker in the `jobs` process, so a pass never waits behind a backlog of job work.
 */
export function maintenanceTaskQueue(prefix = ''): string {
  return `${prefix}maintenance`;
}

/** DC-1: workflow ID of a job, `<job-type-kebab>:<targetId>` (e.g. `card-analysis:<scrapId>`). */
export function jobWorkflowId(jobType: string, targetId: string): string {
  return `${jobType.toLowerCase().replace(/_/g, '-')}:${targetId}`;
}

/** Job type → the workflow type (exported function name) that runs it; built from the manifests. */
export type JobWorkflowTypes = Readonly<Record<JobType, string>>;

/**
 * DC-1 workflow ID of a request taken with an Idempotency-Key: `<job-type-kebab>:<scopeId>:<keyHash>`
 * where `keyHash` is a hash of the key (never the raw key) and `scopeId` its owner (user, company).
 */
export function idempotentWorkflowId(jobType: string, scopeId: string, keyHash: string): string {
  return `${jobType.toLowerCase().replace(/_/g, '-')}:${scopeId}:${keyHash}`;
}

/** DC-4 custom search attributes (Keyword), registered on the namespace and set on every job. */
export const SA_JOB_TYPE = defineSearchAttributeKey('JobType', SearchAttributeType.KEYWORD);
export const SA_TARGET_ID = defineSearchAttributeKey('TargetId', SearchAttributeType.KEYWORD);
export const SA_USER_ID = defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD);
/** The tenant (company) of a company-scoped workflow. */
export const SA_COMPANY_ID = defineSearchAttributeKey('CompanyId', SearchAttributeType.KEYWORD);
/** Names and types for registering the attributes (dev server `--search-attribute`, operator API). */
export const SEARCH_ATTRIBUTE_NAMES = ['JobType', 'TargetId', 'UserId', 'CompanyId'] as const;

/** DC-4 search attributes of one job's workflow: JobType, TargetId, UserId. */
export function jobSearchAttributes(job: { jobType: string; targetId: string; userId: string }): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: SA_JOB_TYPE, value: job.jobType },
    { key: SA_TARGET_ID, value: job.targetId },
    { key: SA_USER_ID, value: job.userId },
  ]);
}

/**
 * DC-4 search attributes of a company-scoped workflow that is not an async_jobs job: JobType (the
 * workflow's kind, e.g. `AI_RUN`), TargetId (its resource id), UserId (the actor) and CompanyId.
 */
export function companySearchAttributes(w: { jobType: string; targetId: string; userId: string; companyId: string }): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: SA_JOB_TYPE, value: w.jobType },
    { key: SA_TARGET_ID, value: w.targetId },
    { key: SA_USER_ID, value: w.userId },
    { key: SA_COMPANY_ID, value: w.companyId },
  ]);
}

/** Identity of one committed job: what a workflow start needs. */
export interface JobRef {
  jobId: string;
  jobType: JobType;
  targetId: string;
  userId: string;
}

/** Input of every job workflow. */
export interface JobWorkflowInput extends JobRef {
  queues: TaskQueues;
  /**
   * Committed jobs this job's workflow starts as independent workflows under their own workflow IDs
   * (SAN-4), so the request path makes one start for several jobs. Only for workflows built on the
   * core's `runJob`.
   */
  companions?: JobRef[];
  /**
   * With `companions`: start them once this job's work is over (completed, failed, skipped or
   * cancelled), so a scrap's card analysis — what its client waits for — does not share the engine
   * with its own refine. Without it the companions start in the first workflow task, which is what
   * recorded histories replay.
   */
  companionsAfterWork?: true;
  /**
   * The run writes its projection local-first. Without it the run decides with `patched()` (which
   * records a marker and a TemporalChangeVersion search-attribute upsert), so histories whose
   * writes went to the `jobs` queue still replay; with it, it need not.
   */
  localWrites?: true;
}

/** Result of a job workflow: `skipped` when the row was already terminal (late duplicate start). */
export interface JobWorkflowResult {
  jobId: string;
  status: 'COMPLETED' | 'SKIPPED';
}
