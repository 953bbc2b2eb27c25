/**
 * Contracts shared by the API, workflows and workers: job types and statuses (SAN-1), task-queue
 * names (DC-2), workflow-ID builders (DC-1) and search-attribute keys (DC-4). Workflow-safe: no I/O.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** SAN-1 job types. */
export const JOB_TYPES = [
  'CARD_ANALYSIS',
  'SCRAP_REFINE',
  'TIL_GENERATION',
  'TIL_GITHUB_COMMIT',
  'RECALL_QUIZ_GENERATION',
  'GITHUB_STAR_RECOMMENDATION',
] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** SAN-1 projection states. */
export const JOB_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Logical task queues (DC-2); the deployed name is `<prefix><name>`. */
export type QueueName = 'jobs' | 'ai' | 'github';
/** Resolved task-queue names, passed to workflows in their input so workflows stay config-free. */
export type TaskQueues = Record<QueueName, string>;

/** Builds the deployed task-queue names from the configured prefix (empty in production). */
export function taskQueues(prefix = ''): TaskQueues {
  return { jobs: `${prefix}jobs`, ai: `${prefix}ai`, github: `${prefix}github` };
}

/** DC-1: workflow ID of a job, `<job-type-kebab>:<targetId>` (e.g. `card-analysis:<scrapId>`). */
export function jobWorkflowId(jobType: JobType, targetId: string): string {
  return `${jobType.toLowerCase().replace(/_/g, '-')}:${targetId}`;
}

/** Workflow type (function name) that runs each job type. */
export const JOB_WORKFLOW_TYPES: Record<JobType, string> = {
  CARD_ANALYSIS: 'cardAnalysisWorkflow',
  SCRAP_REFINE: 'scrapRefineWorkflow',
  TIL_GENERATION: 'tilGenerationWorkflow',
  TIL_GITHUB_COMMIT: 'tilGithubCommitWorkflow',
  RECALL_QUIZ_GENERATION: 'recallQuizGenerationWorkflow',
  GITHUB_STAR_RECOMMENDATION: 'githubStarRecommendationWorkflow',
};

/** DC-4 custom search attributes (Keyword), registered on the namespace and set on every job. */
export const SA_JOB_TYPE = defineSearchAttributeKey('JobType', SearchAttributeType.KEYWORD);
export const SA_TARGET_ID = defineSearchAttributeKey('TargetId', SearchAttributeType.KEYWORD);
export const SA_USER_ID = defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD);
/** Names and types for registering the attributes (dev server `--search-attribute`, operator API). */
export const SEARCH_ATTRIBUTE_NAMES = ['JobType', 'TargetId', 'UserId'] as const;

/** Input of every job workflow. */
export interface JobWorkflowInput {
  jobId: string;
  jobType: JobType;
  targetId: string;
  userId: string;
  queues: TaskQueues;
}

/** Result of a job workflow: `skipped` when the row was already terminal (late duplicate start). */
export interface JobWorkflowResult {
  jobId: string;
  status: 'COMPLETED' | 'SKIPPED';
}
