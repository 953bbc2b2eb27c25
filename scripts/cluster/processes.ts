/**
 * The processes of the production topology that run this project's code: the API and one process
 * per worker entry point (DC-2). The worker list is derived in one place, {@link workerProcesses},
 * from what the code declares: the core's queues (`jobs` + `maintenance` in one process, `ai`,
 * `github`) and every family's own queues (manifest `ownQueues`, entry `src/workers/<queue>.ts`).
 * `npm run cluster`, its tests, the benchmark's cluster topology and the docker-compose check read it.
 */
import { FAMILIES } from '../../src/families';

/** One service process kind: how to start it and which task queues it polls. */
export interface ServiceProcessSpec {
  /** Process (and docker-compose service) name, e.g. `worker-ai`. */
  name: string;
  /** `api` or `worker`. */
  role: 'api' | 'worker';
  /** Entry point relative to the source root (`src/…` with tsx, or a build's `dist/…` without the suffix). */
  entry: string;
  /** Logical task queues the process polls (before TEMPORAL_TASK_QUEUE_PREFIX); none for the API. */
  queues: string[];
  /** Per-process concurrency setting of its activities, when it has one (documentation, compose). */
  concurrencyEnv?: string;
}

/** The API process (`src/api/server.ts`). */
export const API_PROCESS: ServiceProcessSpec = { name: 'api', role: 'api', entry: 'api/server', queues: [] };

const OWN_QUEUE_CONCURRENCY: Record<string, string> = {
  'ai-runs': 'AI_RUNS_ACTIVITY_CONCURRENCY',
  portal: 'PORTAL_ACTIVITY_CONCURRENCY',
  'study-cards': 'ST_ACTIVITY_CONCURRENCY',
};

/**
 * Every worker process of a deployment, one per entry point: `worker-jobs` (`jobs` and
 * `maintenance`), `worker-ai`, `worker-github`, then one `worker-<queue>` per family-owned queue.
 * @throws Error when two families declare the same own queue.
 */
export function workerProcesses(): ServiceProcessSpec[] {
  const core: ServiceProcessSpec[] = [
    { name: 'worker-jobs', role: 'worker', entry: 'workers/jobs', queues: ['jobs', 'maintenance'] },
    { name: 'worker-ai', role: 'worker', entry: 'workers/ai', queues: ['ai'], concurrencyEnv: 'AI_ACTIVITY_CONCURRENCY' },
    { name: 'worker-github', role: 'worker', entry: 'workers/github', queues: ['github'], concurrencyEnv: 'GITHUB_ACTIVITY_CONCURRENCY' },
  ];
  const own = FAMILIES.flatMap((f) => f.ownQueues ?? []).map((q) => q.name);
  const dup = own.find((q, i) => own.indexOf(q) !== i);
  if (dup) throw new Error(`task queue ${dup} is declared by two families`);
  return [
    ...core,
    ...own.map((q): ServiceProcessSpec => ({
      name: `worker-${q}`,
      role: 'worker',
      entry: `workers/${q}`,
      queues: [q],
      ...(OWN_QUEUE_CONCURRENCY[q] ? { concurrencyEnv: OWN_QUEUE_CONCURRENCY[q] } : {}),
    })),
  ];
}
