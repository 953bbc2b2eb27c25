/**
 * The list of families, and everything assembled from it and the core's declaration: the config,
 * the job type → workflow map, target hooks, error registry, routes, the task
 * queues with their activities, the worker processes and the Schedules. A new family is one
 * manifest and one entry in {@link FAMILIES}.
 */
import { JobType as DbJobTypes } from '@prisma/client';
import type { Client } from '@temporalio/client';
import type { FastifyPluginAsync } from 'fastify';
import type { ApiDeps } from '../api/deps';
import { envNames, loadSections, type ConfigSection, type CoreConfig, type SectionOf } from '../config';
import type { JobType, JobWorkflowTypes, TaskQueues } from '../core/contracts';
import { assembleErrorRegistry, type ErrorRegistry } from '../core/errors';
import { createTemporalJobStarter, type JobStarter, type StarterOptions } from '../core/starter';
import type { TargetHookRegistry, TargetHooks } from '../core/target-hooks';
import { core } from './core';
import type { DeploymentService, FamilyManifest, JobRegistry, QueueBase, QueueDecl, ScheduleDecl, SharedQueueContexts, SharedQueueName } from './manifest';
import { aiRuns } from './ai-runs';
import { portal } from './portal';
import { scraps } from './scraps';
import { study } from './study';

/** Every family, in registration order: the one list. */
const MANIFESTS = [scraps, aiRuns, portal, study] as const;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The whole config: the core's section and every family's. */
export type Config = CoreConfig & UnionToIntersection<SectionOf<(typeof MANIFESTS)[number]['config']>>;

/** Every family, in registration order. */
export const FAMILIES: readonly FamilyManifest<Config>[] = MANIFESTS;

/** Every config section: the core's, then each family's. */
export const CONFIG_SECTIONS: readonly ConfigSection<object>[] = [core.config, ...FAMILIES.map((f) => f.config)];

/** Every environment variable the config reads (each declared by exactly one section). */
export const CONFIG_ENV_NAMES: readonly string[] = envNames(CONFIG_SECTIONS);

/**
 * Parses the environment into a {@link Config} (see `.env.example` for every variable).
 * @throws ConfigError naming each invalid variable (fail fast at process start).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadSections<Config>(env, CONFIG_SECTIONS);
}

/** Builds the job type → workflow type map; every job type of the database has exactly one family. */
export function assembleWorkflowTypes(families: readonly FamilyManifest<Config>[]): JobWorkflowTypes {
  const map: Partial<Record<JobType, string>> = {};
  for (const f of families) {
    for (const [jobType, workflow] of Object.entries(f.jobs) as [JobType, string][]) {
      if (map[jobType]) throw new Error(`job type ${jobType} is declared by two families`);
      map[jobType] = workflow;
    }
  }
  const missing = Object.values(DbJobTypes).filter((t) => !map[t]);
  if (missing.length > 0) throw new Error(`job types without a family: ${missing.join(', ')}`);
  return map as JobWorkflowTypes;
}

/** Job type → workflow type (exported function name in src/workflows). */
export const JOB_WORKFLOW_TYPES: JobWorkflowTypes = assembleWorkflowTypes(FAMILIES);

/** Every job type, as declared by the families. */
export const JOB_TYPES: readonly JobType[] = Object.keys(JOB_WORKFLOW_TYPES) as JobType[];

/** Job type → target hooks. */
export const TARGET_HOOKS: TargetHookRegistry = Object.assign(
  {},
  ...FAMILIES.map((f) => f.targets ?? {}),
) as Partial<Record<JobType, TargetHooks>>;

/** Every failure type and problem code: the core's and those of every family's vocabularies. */
export const ERROR_REGISTRY: ErrorRegistry = assembleErrorRegistry(FAMILIES.flatMap((f) => f.errors));

/** What the core's queue contexts need from the families. */
export const JOB_REGISTRY: JobRegistry = { workflowTypes: JOB_WORKFLOW_TYPES, targets: TARGET_HOOKS, jobTypes: JOB_TYPES };

/** Every family's route plugin, in registration order. */
export const FAMILY_ROUTES: readonly FastifyPluginAsync<ApiDeps<Config>>[] = FAMILIES.map((f) => f.routes);

/** What the API entry points hand `buildApp` besides their resources: the families' routes, target hooks and problem codes. */
export const FAMILY_API = { routes: FAMILY_ROUTES, targets: TARGET_HOOKS, problems: ERROR_REGISTRY.problems } as const;

/** Builds the queue list (the core's, then each family's); a queue declared twice is an error. */
export function assembleQueues(families: readonly FamilyManifest<Config>[]): readonly QueueDecl<Config>[] {
  const all: QueueDecl<Config>[] = [...core.queues, ...families.flatMap((f) => f.queues)];
  const names = all.map((q) => q.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`task queue ${twice} is declared twice`);
  return all;
}

/** Every task queue (DC-2), the core's first. */
export const QUEUES: readonly QueueDecl<Config>[] = assembleQueues(FAMILIES);

/** Logical names of every task queue a worker serves. */
export function workerQueues(): string[] {
  return QUEUES.map((q) => q.name);
}

/**
 * The declaration of task queue `name`.
 * @throws Error when no manifest declares it.
 */
export function queueDecl(name: string): QueueDecl<Config> {
  const found = QUEUES.find((q) => q.name === name);
  if (!found) throw new Error(`no manifest declares task queue ${name} (known: ${workerQueues().join(', ')})`);
  return found;
}

/** One worker process of a deployment (`npm run worker -- --queue <name>`, docker-compose `worker-<name>`). */
export interface WorkerProcess {
  /** Process name, e.g. `jobs`; the name of its first queue. */
  name: string;
  /** Logical task queues it serves, e.g. `jobs` and `maintenance`. */
  queues: string[];
  /** Environment variables of its queues' activity concurrency. */
  concurrencyEnv: string[];
  /** What it runs: its queues' summaries. */
  summary: string;
  /** Services the activities it runs need (every family adding activities to one of its queues). */
  needs: DeploymentService[];
}

/** Every worker process: queues grouped by their `process` (default: each queue its own). */
export function workerProcesses(): WorkerProcess[] {
  const out: WorkerProcess[] = [];
  for (const q of QUEUES) {
    const name = q.process ?? q.name;
    let p = out.find((x) => x.name === name);
    if (!p) out.push((p = { name, queues: [], concurrencyEnv: [], summary: '', needs: [] }));
    p.queues.push(q.name);
    if (q.activityConcurrency?.env) p.concurrencyEnv.push(q.activityConcurrency.env);
    if (q.summary) p.summary = p.summary ? `${p.summary}; ${q.summary}` : q.summary;
    const users = FAMILIES.filter((f) => f.queues.some((own) => own.name === q.name) || q.name in f.activities);
    for (const need of users.flatMap((f) => f.needs ?? [])) if (!p.needs.includes(need)) p.needs.push(need);
  }
  return out;
}

/**
 * The worker process serving queue `queue`.
 * @throws Error when no manifest declares the queue.
 */
export function processOf(queue: string): WorkerProcess {
  const name = queueDecl(queue).process ?? queue;
  return workerProcesses().find((p) => p.name === name)!;
}

/** Every Schedule: the core's, then each family's. */
export const SCHEDULES: readonly ScheduleDecl<Config>[] = [...core.schedules, ...FAMILIES.flatMap((f) => f.schedules)];

/**
 * The declaration of Schedule `name`.
 * @throws Error when no manifest declares it.
 */
export function scheduleDecl(name: string): ScheduleDecl<Config> {
  const found = SCHEDULES.find((s) => s.name === name);
  if (!found) throw new Error(`no manifest declares Schedule ${name}`);
  return found;
}

/** The Schedules whose workflows run on one of `queues`. */
export function schedulesOn(queues: readonly string[]): ScheduleDecl<Config>[] {
  return SCHEDULES.filter((s) => queues.includes(s.queue));
}

/**
 * The families' activities on shared queue `queue`, merged; a name registered by two families is
 * an error (one activity name, one implementation).
 */
export function familyActivities<Q extends SharedQueueName>(
  queue: Q,
  ctx: SharedQueueContexts<Config>[Q],
  families: readonly FamilyManifest<Config>[] = FAMILIES,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of families) {
    const factory = f.activities[queue] as ((c: SharedQueueContexts<Config>[Q]) => object) | undefined;
    if (!factory) continue;
    for (const [name, fn] of Object.entries(factory(ctx))) {
      if (name in out) throw new Error(`activity ${name} on the ${queue} queue is registered twice (family ${f.name})`);
      out[name] = fn;
    }
  }
  return out;
}

/**
 * Every activity of queue `name`, keyed by activity name: its declarer's and, on a shared queue,
 * every family's ({@link familyActivities}), with the context its declaration builds from `base`.
 * @throws Error when no manifest declares the queue, or when an activity name is registered twice.
 */
export function queueActivities(name: string, base: QueueBase<Config>): Record<string, unknown> {
  const decl = queueDecl(name);
  const ctx = decl.context ? decl.context(base) : { config: base.config, db: base.db };
  const own = { ...(decl.activities?.(ctx as never, base) ?? {}) } as Record<string, unknown>;
  if (!(core.queues as readonly unknown[]).includes(decl)) return own;
  const families = familyActivities(name as SharedQueueName, ctx as SharedQueueContexts<Config>[SharedQueueName]);
  for (const [activity, fn] of Object.entries(families)) {
    if (activity in own) throw new Error(`activity ${activity} on the ${name} queue is registered twice (the core's and a family's)`);
    own[activity] = fn;
  }
  return own;
}

/** The Temporal job starter with the families' job type → workflow map. */
export function createJobStarter(client: Client, queues: TaskQueues, opts: StarterOptions = {}): JobStarter {
  return createTemporalJobStarter(client, queues, JOB_WORKFLOW_TYPES, opts);
}

export type { FamilyManifest, QueueBase, QueueDecl, ScheduleDecl } from './manifest';
