/**
 * Starting and probing the cluster's processes: Temporal nodes, the TCP balancers, the API
 * processes and the worker processes (each its own `node` process, from the sources through tsx or
 * from a compiled build), each ready only when it does its job: a node answers gRPC, an API answers
 * `GET /ready`, a worker polls every task queue it serves.
 */
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { probeConnection } from '../../src/dev/temporal-server';
import { workerProcesses } from '../../src/families';
import { startChild, type Child, type ChildOptions } from './child';

/**
 * One kind of service process of the cluster: the API (`src/server.ts`) or one worker process the
 * manifests declare (`src/workers/main.ts --queue <name>`, {@link workerProcesses}).
 */
export interface ServiceSpec {
  /** Process (and docker-compose service) name: `api`, `worker-jobs`, `worker-ai` … */
  name: string;
  role: 'api' | 'worker';
  /** Logical task queues it polls (before TEMPORAL_TASK_QUEUE_PREFIX); none for the API. */
  queues: string[];
  /** Entry point below the source root, without the suffix, and its arguments. */
  entry: string;
  args: string[];
}

/** The API process. */
export const API_SERVICE: ServiceSpec = { name: 'api', role: 'api', queues: [], entry: 'server', args: [] };

/** One worker service per worker process of the manifests, in their order. */
export function workerServices(): ServiceSpec[] {
  return workerProcesses().map((p) => ({ name: `worker-${p.name}`, role: 'worker', queues: p.queues, entry: 'workers/main', args: ['--queue', p.name] }));
}

/** Raised when a process is not ready in time or exits while starting; carries its log tail. */
export class StartError extends Error {
  constructor(name: string, why: string, tail: string) {
    super(`${name} ${why}; last lines of its log:\n${tail}`);
    this.name = 'StartError';
  }
}

/** Polls `probe` every 250-1000 ms until it returns true; fails when `child` exits or after `timeoutMs`. */
export async function waitReady(child: Child, what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (let wait = 250; ; wait = Math.min(1000, wait * 1.5)) {
    if (child.exit) throw new StartError(child.name, `exited while starting (code ${child.exit.code}, signal ${child.exit.signal})`, child.tail());
    try {
      if (await probe()) return;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new StartError(child.name, `was not ${what} after ${timeoutMs / 1000} s (${last || 'no answer'})`, child.tail());
    await Promise.race([sleep(wait), child.exited]);
  }
}

/** True once the frontend at `address` answers GetSystemInfo. */
export async function frontendAnswers(address: string): Promise<boolean> {
  const connection = await probeConnection(address, 2_000);
  try {
    await connection.withDeadline(Date.now() + 3_000, () => connection.workflowService.getSystemInfo({}));
    return true;
  } finally {
    await connection.close();
  }
}

/** True when `url/ready` answers 200. */
export async function apiReady(url: string): Promise<boolean> {
  const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(3_000) });
  await res.arrayBuffer();
  return res.status === 200;
}

/** `temporal.api.enums.v1.TaskQueueType`: workflow 1, activity 2. */
const TASK_QUEUE_TYPES = [1, 2] as const;

/**
 * True when the worker process `pid` polls each of `queues` (workflow or activity tasks): the SDK's
 * default identity is `<pid>@<hostname>`.
 */
export async function workerPolls(connection: Connection, namespace: string, queues: string[], pid: number): Promise<boolean> {
  const identity = `${pid}@${hostname()}`;
  for (const name of queues) {
    let polled = false;
    for (const taskQueueType of TASK_QUEUE_TYPES) {
      const r = await connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name }, taskQueueType });
      polled ||= r.pollers.some((p) => p.identity === identity);
    }
    if (!polled) return false;
  }
  return true;
}

/** How to run a service process: from the sources (tsx) or from a compiled build directory. */
export type BuildRef = { kind: 'source' } | { kind: 'build'; dir: string; id: string };

/** `node` arguments of `spec` under `build`. */
export function serviceCommand(root: string, spec: ServiceSpec, build: BuildRef): string[] {
  const entry = build.kind === 'source' ? ['--import', 'tsx', path.join(root, 'src', `${spec.entry}.ts`)] : [path.join(build.dir, `${spec.entry}.js`)];
  return [...entry, ...spec.args];
}

/** Starts a service process (`node …`) with `env` in its own process group. */
export function startService(root: string, name: string, spec: ServiceSpec, build: BuildRef, env: NodeJS.ProcessEnv, logFile: string, onUnexpectedExit: ChildOptions['onUnexpectedExit']): Child {
  return startChild({ name, command: process.execPath, args: serviceCommand(root, spec, build), env, cwd: root, logFile, onUnexpectedExit });
}
