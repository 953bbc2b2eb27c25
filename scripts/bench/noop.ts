/**
 * The baseline most sections measure against: `noopWorkflow` (the core's workflow that does
 * nothing) on the `jobs` queue, started bare through the Temporal client — what a job costs
 * Temporal alone, without the API, the database or the activities.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { performance } from 'node:perf_hooks';
import type { TaskQueues } from '../../src/core/contracts';
import type { noopWorkflow } from '../../src/workflows/core/maintenance';
import { cpuDiff, cpuSnapshot, type CpuSnapshot } from './cpu';
import type { PhaseSample } from './phases';
import { pool } from './measure';
import { POST_CLIENTS } from './options';

/** No-op starts and round trips with unique workflow IDs of this run. */
export interface NoopBaseline {
  /** One start (not awaited to its end). */
  start(): Promise<WorkflowHandle<typeof noopWorkflow>>;
  /** `n` start → result round trips at `concurrency`; their latencies in ms (each run also pushed to `samples` when given, for a phase report). */
  latencies(n: number, concurrency: number, samples?: PhaseSample[]): Promise<number[]>;
  /** `n` bare starts by POST_CLIENTS callers: how long they took (s) and the CPU spent meanwhile. */
  starts(n: number): Promise<{ n: number; seconds: number; cpu: CpuSnapshot }>;
}

/** The baseline over `client`, on the `jobs` task queue of `queues`. */
export function noopBaseline(client: Client, queues: TaskQueues, runId: string): NoopBaseline {
  let seq = 0;
  const start = () => client.workflow.start<typeof noopWorkflow>('noopWorkflow', { taskQueue: queues.jobs, workflowId: `bench-noop-${runId}-${seq++}` });
  return {
    start,
    async latencies(n, concurrency, samples) {
      const lat: number[] = [];
      await pool(n, concurrency, async () => {
        const t = performance.now();
        const submittedAt = Date.now();
        const h = await start();
        await h.result();
        lat.push(performance.now() - t);
        samples?.push({ workflowId: h.workflowId, submittedAt, seenAt: Date.now() });
      });
      return lat;
    },
    async starts(n) {
      const c0 = cpuSnapshot();
      const wall = await pool(n, POST_CLIENTS, async () => void (await start()));
      return { n, seconds: wall / 1000, cpu: cpuDiff(c0, cpuSnapshot()) };
    },
  };
}
