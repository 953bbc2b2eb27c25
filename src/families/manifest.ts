/**
 * The shape of a family's one declaration (DC-1 … DC-4): its job types and the workflow that runs
 * each, target hooks, error vocabularies, routes, activities per task queue and
 * schedules. Workers and the API are assembled from the list of manifests (src/families/index.ts);
 * adding a job type touches its family's folders and one line of its manifest.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { AiProvider } from '../ai/types';
import type { ApiDeps } from '../api/deps';
import type { Config } from '../config';
import type { JobType, JobWorkflowInput, JobWorkflowResult, QueueName } from '../core/contracts';
import type { ErrorVocabulary } from '../core/errors';
import type { JobStarter } from '../core/starter';
import type { TargetHooks } from '../core/target-hooks';
import type { TokenBox } from '../crypto/token-box';
import type { GithubClientFactory } from '../github/client';
import type * as workflows from '../workflows';

type Workflows = typeof workflows;

/** Exported workflow functions that run a job: `(input: JobWorkflowInput) => Promise<JobWorkflowResult>`. */
export type JobWorkflowName = {
  [K in keyof Workflows]: Workflows[K] extends (input: JobWorkflowInput) => Promise<JobWorkflowResult> ? K : never;
}[keyof Workflows];

/** Any exported workflow function (schedules may run maintenance workflows). */
export type WorkflowName = keyof Workflows;

/** What the `jobs` worker hands a family's activity factory. */
export interface JobsQueueContext {
  config: Config;
  db: PrismaClient;
  client: Client;
  starter: JobStarter;
}

/** What the `ai` worker hands a family's activity factory. */
export interface AiQueueContext {
  config: Config;
  db: PrismaClient;
  ai: AiProvider;
}

/** What the `github` worker hands a family's activity factory. */
export interface GithubQueueContext {
  config: Config;
  db: PrismaClient;
  tokens: TokenBox;
  github: GithubClientFactory;
}

/** Activity factories of one family, per task queue (DC-2). */
export interface FamilyActivities {
  jobs?: (ctx: JobsQueueContext) => object;
  ai?: (ctx: AiQueueContext) => object;
  github?: (ctx: GithubQueueContext) => object;
  /** Activities of the family's reconcile passes, on the `maintenance` queue (never behind job work). */
  maintenance?: (ctx: JobsQueueContext) => object;
}

/** What the worker of a family's own task queue hands that queue's activity factory. */
export interface OwnQueueContext {
  config: Config;
  db: PrismaClient;
}

/**
 * A task queue a family owns (DC-2), deployed as `<prefix><name>` (core `ownTaskQueue`) and served
 * by the family's own worker entry point (`src/workers/<name>.ts`, built with
 * `createOwnQueueWorker`), so its dependency cannot starve any other queue.
 */
export interface OwnQueueDecl {
  /** Logical queue name, e.g. `ai-runs`. */
  name: string;
  /** The queue's activities. */
  activities: (ctx: OwnQueueContext) => object;
  /** Most activities one worker runs at once (default 8). */
  concurrency?: (config: Config) => number;
  /**
   * The queue also runs the family's workflows (their workflow tasks, not only activities), so
   * even a backlog of workflow tasks on the core's queues cannot delay them (e.g. ST-6).
   */
  workflows?: boolean;
  /**
   * Temporal Schedules the queue's worker entry point creates (idempotently) at start-up, e.g. a
   * poller; returns their IDs.
   */
  schedules?: (client: Client, config: Config) => Promise<string[]>;
}

/**
 * A Temporal Schedule a family runs, created at `jobs` worker start-up. `recovery` (default): a
 * SAN-6 rule every RECOVERY_INTERVAL_MINUTES on the `jobs` queue with the recovery input;
 * `reconcile`: a SAN-4-style pass every RECONCILE_INTERVAL_SECONDS on the `maintenance` queue with
 * the reconcile input (e.g. a family whose rows are not async_jobs restarting lost starts).
 */
export interface ScheduleDecl {
  /** Schedule name before the task-queue prefix, e.g. `recovery-missing-cards`. */
  name: string;
  /** Workflow it starts; its input is the recovery input (RECOVERY_* config) or the reconcile input. */
  workflow: WorkflowName;
  kind?: 'recovery' | 'reconcile';
}

/** One family's declaration. */
export interface FamilyManifest {
  /** Folder name of the family in every role folder (`scraps`, `ai-runs`, `portal`, `study`); also names its demo part. */
  name: string;
  /** Job type → the workflow that runs it (compile-time checked against src/workflows exports). */
  jobs: { readonly [T in JobType]?: JobWorkflowName };
  /** Job types whose target has a status of its own or closes (SAN-6, DC-3). */
  targets?: { readonly [T in JobType]?: TargetHooks };
  /**
   * The error vocabularies the family throws through: its own (src/domain/<family>/errors.ts) and
   * those of the shared adapters it calls. The core's registry of failure types and problem codes
   * is assembled from these.
   */
  errors: readonly ErrorVocabulary[];
  /** The family's route plugin (registered on the app with {@link ApiDeps}). */
  routes: FastifyPluginAsync<ApiDeps>;
  /** Activity factories per task queue. */
  activities: FamilyActivities;
  /** Schedules (recovery rules) the family adds to the core's. */
  schedules: readonly ScheduleDecl[];
  /** Task queues this family's activities use besides `jobs` (documentation and worker checks). */
  queues: readonly QueueName[];
  /** Task queues the family owns, each with its own worker entry point (DC-2). */
  ownQueues?: readonly OwnQueueDecl[];
}
