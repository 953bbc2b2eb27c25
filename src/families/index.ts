/**
 * The list of families and what the API and the workers are assembled from: the job type →
 * workflow map, target hooks, error registry, routes, activities per task queue
 * and schedules. A new family is one manifest and one entry in {@link FAMILIES}.
 */
import { JobType as DbJobTypes } from '@prisma/client';
import type { Client } from '@temporalio/client';
import type { JobType, JobWorkflowTypes, TaskQueues } from '../core/contracts';
import { assembleErrorRegistry, type ErrorRegistry } from '../core/errors';
import { createTemporalJobStarter, type JobStarter, type StarterOptions } from '../core/starter';
import type { TargetHookRegistry, TargetHooks } from '../core/target-hooks';
import type { AiQueueContext, FamilyManifest, GithubQueueContext, JobsQueueContext, OwnQueueDecl, ScheduleDecl } from './manifest';
import { ar } from './ai-runs';
import { po } from './portal';
import { san } from './scraps';
import { st } from './study';

/** Every family, in registration order. */
export const FAMILIES: readonly FamilyManifest[] = [san, ar, po, st];

/** Builds the job type → workflow type map; every job type of the database has exactly one family. */
export function assembleWorkflowTypes(families: readonly FamilyManifest[]): JobWorkflowTypes {
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

/** Every family's recovery schedules (kind `recovery`, the default). */
export const FAMILY_SCHEDULES: readonly ScheduleDecl[] = FAMILIES.flatMap((f) => f.schedules).filter((s) => (s.kind ?? 'recovery') === 'recovery');

/** Every family's reconcile schedules (kind `reconcile`, on the `maintenance` queue). */
export const FAMILY_RECONCILE_SCHEDULES: readonly ScheduleDecl[] = FAMILIES.flatMap((f) => f.schedules).filter((s) => s.kind === 'reconcile');

/**
 * The family task queue named `name` (DC-2) and its declaration.
 * @throws Error when no family owns it, or two do.
 */
export function ownQueue(name: string, families: readonly FamilyManifest[] = FAMILIES): OwnQueueDecl {
  const found = families.flatMap((f) => f.ownQueues ?? []).filter((q) => q.name === name);
  if (found.length !== 1) throw new Error(found.length === 0 ? `no family owns task queue ${name}` : `task queue ${name} is owned by two families`);
  return found[0]!;
}

/** Context of each task queue's activity factories. */
export interface QueueContexts {
  jobs: JobsQueueContext;
  ai: AiQueueContext;
  github: GithubQueueContext;
  maintenance: JobsQueueContext;
}

/**
 * The families' activities of task queue `queue`, merged; a name registered by two families is an
 * error (one activity name, one implementation).
 */
export function familyActivities<Q extends keyof QueueContexts>(
  queue: Q,
  ctx: QueueContexts[Q],
  families: readonly FamilyManifest[] = FAMILIES,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of families) {
    const factory = f.activities[queue] as ((c: QueueContexts[Q]) => object) | undefined;
    if (!factory) continue;
    for (const [name, fn] of Object.entries(factory(ctx))) {
      if (name in out) throw new Error(`activity ${name} on the ${queue} queue is registered twice (family ${f.name})`);
      out[name] = fn;
    }
  }
  return out;
}

/** The Temporal job starter with the families' job type → workflow map. */
export function createJobStarter(client: Client, queues: TaskQueues, opts: StarterOptions = {}): JobStarter {
  return createTemporalJobStarter(client, queues, JOB_WORKFLOW_TYPES, opts);
}
