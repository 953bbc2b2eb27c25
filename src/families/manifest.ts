/**
 * The shape of a family's one declaration (DC-1 … DC-4) and of the core's: job types and the
 * workflow that runs each, target hooks, error vocabularies, routes, the task queues it
 * owns, the activities it adds to the core's queues, and its Schedules. Workers, the API, the demo,
 * the bench, the test stack and docker-compose's worker services are assembled from the list of
 * manifests (src/families/index.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { PrismaClient } from '@prisma/client';
import type { AiProvider } from '../ai/types';
import type { ApiDeps } from '../api/deps';
import type { ConfigSection, CoreConfig } from '../config';
import type { JobType, JobWorkflowInput, JobWorkflowResult, JobWorkflowTypes, TaskQueues } from '../core/contracts';
import type { ErrorVocabulary } from '../core/errors';
import type { JobStarter } from '../core/starter';
import type { TargetHookRegistry, TargetHooks } from '../core/target-hooks';
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

/** The job registry assembled from the manifests, handed to the core's queue contexts. */
export interface JobRegistry {
  workflowTypes: JobWorkflowTypes;
  targets: TargetHookRegistry;
  jobTypes: readonly JobType[];
}

/** Resources a caller (a test) may supply instead of the ones a queue's context would build. */
export interface ProvidedResources {
  ai: AiProvider;
  github: GithubClientFactory;
}

/** What every queue's context is built from: the process's resources. */
export interface QueueBase<C extends CoreConfig = CoreConfig> {
  config: C;
  db: PrismaClient;
  /** The process's Temporal client. */
  client: Client;
  /** The worker's connection (a client over it starts workflows eagerly). */
  connection: NativeConnection;
  registry: JobRegistry;
  provided: Partial<ProvidedResources>;
}

/** What the `jobs` and `maintenance` queues hand an activity factory. */
export interface JobsQueueContext<C extends CoreConfig = CoreConfig> {
  config: C;
  db: PrismaClient;
  client: Client;
  starter: JobStarter;
}

/** What the `ai` queue hands an activity factory. */
export interface AiQueueContext<C extends CoreConfig = CoreConfig> {
  config: C;
  db: PrismaClient;
  ai: AiProvider;
}

/** What the `github` queue hands an activity factory. */
export interface GithubQueueContext<C extends CoreConfig = CoreConfig> {
  config: C;
  db: PrismaClient;
  tokens: TokenBox;
  github: GithubClientFactory;
}

/** What a family-owned queue hands its activity factory. */
export interface OwnQueueContext<C extends CoreConfig = CoreConfig> {
  config: C;
  db: PrismaClient;
}

/** Context of each of the core's shared queues (the queues families add activities to). */
export interface SharedQueueContexts<C extends CoreConfig = CoreConfig> {
  jobs: JobsQueueContext<C>;
  maintenance: JobsQueueContext<C>;
  ai: AiQueueContext<C>;
  github: GithubQueueContext<C>;
}

/** A shared queue's name. */
export type SharedQueueName = keyof SharedQueueContexts;

/**
 * A task queue (DC-2), declared exactly once: by the core (src/families/core.ts) or by the family
 * that owns it. Deployed as `<TEMPORAL_TASK_QUEUE_PREFIX><name>`; served by the worker process
 * `npm run worker -- --queue <name>`.
 */
export interface QueueDeclBase<C extends CoreConfig = CoreConfig> {
  /** Logical name, e.g. `ai-runs`. */
  name: string;
  /** Name of the worker process serving it (default: the queue's own name); queues sharing it run in one process. */
  process?: string;
  /** The queue runs workflow tasks too, so its worker loads src/workflows. */
  workflows?: boolean;
  /** Most activities one worker runs at once: the setting and its environment variable, if any. */
  activityConcurrency?: { env?: string; of(config: C): number };
  /** Most workflow tasks one worker runs at once (SDK default when absent). */
  workflowTaskConcurrency?: number;
  /** Fields logged when the queue's worker starts. */
  describe?(config: C): object;
  /** What the queue runs, in one line (the README's process list, docker-compose). */
  summary?: string;
}

/** A service of the deployment besides PostgreSQL and Temporal that a family's activities need. */
export type DeploymentService = 'object-store';

/** A queue a family owns: its activities get the config and the database. */
export interface FamilyQueueDecl<C extends CoreConfig = CoreConfig> extends QueueDeclBase<C> {
  activities?(ctx: OwnQueueContext<C>): object;
}

/** A queue the core declares: it builds the context its (and the families') activity factories get. */
export interface CoreQueueDecl<Ctx> extends QueueDeclBase {
  context(base: QueueBase): Ctx;
  /** The core's own activities on the queue. */
  activities?(ctx: Ctx, base: QueueBase): object;
}

/** Any queue declaration, as the kit reads them (src/families/index.ts). */
export interface QueueDecl<C extends CoreConfig = CoreConfig> extends QueueDeclBase<C> {
  context?(base: QueueBase<C>): unknown;
  activities?(ctx: never, base: QueueBase<C>): object;
}

/**
 * A Temporal Schedule (created or updated when the worker process serving its queue starts, if
 * SCHEDULES_ENABLED and its own `enabled`); ID `<prefix><name>`, overlap SKIP.
 */
export interface ScheduleDecl<C extends CoreConfig = CoreConfig> {
  /** Schedule name before the task-queue prefix, e.g. `recovery-missing-cards`. */
  name: string;
  /** Workflow it starts. */
  workflow: WorkflowName;
  /** Logical queue the workflow runs on. */
  queue: string;
  /** Interval from config, e.g. `(c) => `${c.reconcile.intervalSeconds}s``. */
  every(config: C): Duration;
  /** The workflow's arguments. */
  input(config: C, queues: TaskQueues): unknown[];
  /** Missed runs caught up after an outage (default 1 minute). */
  catchupWindow?: Duration;
  /** Its own switch besides SCHEDULES_ENABLED. */
  enabled?(config: C): boolean;
}

/** Activity factories a family adds to the core's shared queues (DC-2). */
export type FamilyActivities<C extends CoreConfig = CoreConfig> = { readonly [Q in SharedQueueName]?: (ctx: SharedQueueContexts<C>[Q]) => object };

/**
 * One family's declaration. `C` is the config its code reads: the core's and its own section
 * ({@link defineFamily} infers it from `config`).
 */
export interface FamilyManifest<C extends CoreConfig = CoreConfig> {
  /** Folder name of the family in every role folder (`scraps`, `ai-runs`, `portal`, `study`). */
  name: string;
  /** Its settings: environment variables (zod) and their mapping (src/config/<family>.ts). */
  config: ConfigSection<object>;
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
  routes: FastifyPluginAsync<ApiDeps<C>>;
  /** Activities the family adds to the core's shared queues. */
  activities: FamilyActivities<C>;
  /** Task queues the family owns. */
  queues: readonly FamilyQueueDecl<C>[];
  /** The family's Schedules. */
  schedules: readonly ScheduleDecl<C>[];
  /** Services its activities need, so every worker process running them waits for them (docker-compose). */
  needs?: readonly DeploymentService[];
}

/** A family's declaration with the type of its config section `S` kept (what `Config` is assembled from). */
export type Family<S extends object> = FamilyManifest<CoreConfig & S> & { config: ConfigSection<S> };

/**
 * Declares a family from its config section and the rest of its manifest, typed with the config its
 * code reads: the core's and the section's.
 */
export function defineFamily<S extends object>(config: ConfigSection<S>, manifest: Omit<FamilyManifest<CoreConfig & S>, 'config'>): Family<S> {
  return { config, ...manifest };
}
