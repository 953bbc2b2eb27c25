/**
 * `npm run bench -- --topology cluster`: the benchmark against the production topology instead of
 * one process on the dev server. Launches the cluster (scripts/cluster/launch.ts: two Temporal
 * nodes on PostgreSQL, two API processes behind a balancer, one process per worker entry point),
 * hands the bench the cluster's addresses and environment (so its own client speaks the cluster's
 * payload codec), names every process for the CPU report (bench-cpu's labeler), samples each
 * process's RSS, and adds the worker-scaling section: jobs/s with 1 and with 2 worker processes
 * per entry point, measured in the same run.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { PrismaClient } from '@prisma/client';
import { createUserWithToken } from '../../src/auth/tokens';
import type { ClusterState } from '../cluster/cluster';
import { launchCluster, type LaunchedCluster } from '../cluster/launch';
import { setProcessLabeler } from './cpu';
import { reportWorkerFailure, started } from './lifecycle';
import { drain } from './measure';
import type { Row } from './summary';

/** What the bench uses of the cluster. */
export interface ClusterTopology {
  /** Temporal (the frontends' balancer), the projections' database, the namespace. */
  external: { temporalAddress: string; databaseUrl: string; namespace: string };
  /** The environment of the cluster's services (codec keys, callback secrets, object store, portal). */
  env: Record<string, string>;
  /** The API processes' balancer. */
  apiUrl: string;
  /** Peak RSS per process (MiB) since the start, as table lines. */
  rssReport(): string[];
  /** The worker-scaling figure (1 vs 2 processes per worker process kind). */
  workerScaling(ctx: ScalingContext): Promise<Row[]>;
  /**
   * Stops every worker process (SIGSTOP) so that a window measures the API tier alone, as when the
   * workers run on other machines; their tasks wait in Temporal. Returns the resume (SIGCONT), which
   * the bench's clean-up also runs.
   */
  pauseWorkers(): () => void;
  /**
   * Restarts every API and worker process (SIGTERM, then start, all at once) with `env` added to
   * the cluster's service environment (none: the cluster's own); resolves when all are ready.
   */
  restartServices(env?: Record<string, string>): Promise<void>;
}

/** What {@link ClusterTopology.workerScaling} needs of the run. */
export interface ScalingContext {
  db: PrismaClient;
  docs: string[];
  runId: string;
  /** Scraps per round (each makes two jobs). */
  scraps: number;
  say: (line?: string) => void;
}

function rssMiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the cluster for the bench and registers its stop with the bench's clean-up. */
export async function startClusterTopology(say: (line: string) => void): Promise<ClusterTopology> {
  const t0 = performance.now();
  let stopping = false;
  // No Schedules, as in the dev-server run: the memo-card poller would otherwise turn every card of
  // (a) and (b) into extraction work that the dev-server figures do not have.
  const cluster: LaunchedCluster = await launchCluster({ env: { LOG_LEVEL: 'warn', SCHEDULES_ENABLED: 'false', ST_POLL_SCHEDULE_ENABLED: 'false' } });
  started('cluster', async () => {
    stopping = true;
    setProcessLabeler(undefined);
    await cluster.stop();
  });
  cluster.child.once('exit', () => {
    if (!stopping) reportWorkerFailure(new Error(`the cluster stopped (a process crashed):\n${cluster.output().slice(-4000)}`));
  });
  say(`cluster: ready in ${((performance.now() - t0) / 1000).toFixed(0)} s (${cluster.state.processes.length} processes; two Temporal nodes on PostgreSQL)`);
  let state: ClusterState = cluster.state;
  const labels = new Map<number, string>();
  const relabel = (s: ClusterState) => {
    labels.clear();
    labels.set(cluster.child.pid!, 'cluster supervisor (emulators, moto)');
    labels.set(s.postgresPids.temporal, 'postgres (Temporal)');
    labels.set(s.postgresPids.projections, 'postgres (projections)');
    for (const p of s.processes) if (p.pid) labels.set(p.pid, p.name);
  };
  relabel(state);
  setProcessLabeler((pid) => labels.get(pid));
  const peaks = new Map<string, number>();
  const sampler = setInterval(() => {
    for (const [pid, name] of labels) {
      const v = rssMiB(pid);
      if (v !== undefined) peaks.set(name, Math.max(peaks.get(name) ?? 0, v));
    }
  }, 1000);
  sampler.unref();
  started('RSS sampler', async () => clearInterval(sampler));
  const refresh = async () => {
    state = await cluster.control.state();
    relabel(state);
  };

  /** Submits `n` scraps (16 at a time) and waits for their 2n jobs; returns jobs/s from the first submit. */
  const round = async (ctx: ScalingContext, tag: string): Promise<{ jobs: number; seconds: number }> => {
    const { token } = await createUserWithToken(ctx.db, `bench-scale-${ctx.runId}-${tag}`);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const t = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      for (let i = next++; i < ctx.scraps; i = next++) {
        const res = await fetch(`${state.apiUrl}/scraps`, { method: 'POST', headers, body: JSON.stringify({ content: `${ctx.docs[i % ctx.docs.length]}\n\nbench ${ctx.runId} scale-${tag}-${i}` }) });
        await res.arrayBuffer();
        if (res.status !== 202) throw new Error(`worker scaling: POST /scraps → ${res.status}`);
      }
    }));
    await drain(ctx.db, `worker scaling (${tag})`);
    return { jobs: 2 * ctx.scraps, seconds: (performance.now() - t) / 1000 };
  };

  return {
    external: { temporalAddress: state.temporalAddress, databaseUrl: state.databaseUrl, namespace: state.namespace },
    env: state.serviceEnv,
    apiUrl: state.apiUrl,
    rssReport() {
      return ['| Process | RSS peak (MiB) |', '|---|---|', ...[...peaks].sort(([a], [b]) => a.localeCompare(b)).map(([name, v]) => `| ${name} | ${v.toFixed(0)} |`)];
    },
    pauseWorkers() {
      const pids = state.processes.filter((p) => p.kind === 'worker' && p.pid).map((p) => p.pid!);
      const signal = (sig: NodeJS.Signals) => {
        for (const pid of pids) {
          try {
            process.kill(pid, sig);
          } catch {
            // gone: nothing to pause or resume
          }
        }
      };
      let paused = true;
      const resume = () => {
        if (paused) signal('SIGCONT');
        paused = false;
      };
      started('paused workers', async () => resume());
      signal('SIGSTOP');
      return resume;
    },
    async restartServices(env) {
      const names = state.processes.filter((p) => p.kind === 'api' || p.kind === 'worker').map((p) => p.name);
      await Promise.all(names.map(async (name) => {
        await cluster.control.call('/kill', { name, signal: 'SIGTERM' });
        await cluster.control.call('/start', { name, ...(env ? { env } : {}) });
      }));
      await refresh();
    },
    async workerScaling(ctx) {
      ctx.say();
      ctx.say(`## worker scaling: ${ctx.scraps} scraps (${2 * ctx.scraps} jobs) submitted by 16 clients, to all jobs terminal; 1, then 2 processes of each worker process kind`);
      await round(ctx, 'warm-up');
      const one = await round(ctx, '1');
      ctx.say(`1 process of each kind: ${one.jobs} jobs in ${one.seconds.toFixed(1)} s = ${(one.jobs / one.seconds).toFixed(1)} jobs/s`);
      const specs = [...new Set(state.processes.filter((p) => p.kind === 'worker').map((p) => p.spec!))];
      const added: string[] = [];
      for (const spec of specs) added.push((await cluster.control.call<{ name: string }>('/add-worker', { spec })).name);
      await refresh();
      const two = await round(ctx, '2');
      ctx.say(`2 processes of each kind: ${two.jobs} jobs in ${two.seconds.toFixed(1)} s = ${(two.jobs / two.seconds).toFixed(1)} jobs/s (${added.length} processes added)`);
      for (const name of added) await cluster.control.call('/remove-worker', { name });
      await refresh();
      const r1 = one.jobs / one.seconds;
      const r2 = two.jobs / two.seconds;
      return [{ measure: 'worker scaling: jobs/s, 2 processes of each worker process kind', subject: `${r2.toFixed(1)}/s`, baseline: `${r1.toFixed(1)}/s with 1 process each`, ratio: `${(r2 / r1).toFixed(2)}×` }];
    },
  };
}
