/**
 * (h) What each process of a deployment needs in memory. Starts the real entry points as separate
 * processes (`src/server.ts`, `src/workers/main.ts` with `--queue jobs`, `ai` and `github`, each
 * `node --import tsx`), against the bench's database and Temporal
 * server, on task queues of their own (`rss-<run>-…`, so the bench's in-process workers take none
 * of their work); then drives the bench load through that API: POST /scraps as in (a), and, while
 * their jobs run, GET /async-jobs/{id} at 32 connections as in (c). The resident set size (RSS) of
 * each process is sampled every 200 ms: its peak while starting (the jobs worker bundles its
 * workflows then), when idle, and its peak under the load. For scale, the RSS of an idle
 * `node --import tsx` process is printed as the floor.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createUserWithToken } from '../../../src/auth/tokens';
import { getFreePort } from '../../../src/dev/temporal-server';
import { elapsed, say, sleep, started } from '../lifecycle';
import { runLoad } from '../load';
import { drain } from '../measure';
import { POST_CLIENTS, READ_CONNECTIONS } from '../options';
import type { BenchSection } from '../section';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SAMPLE_MS = 200;
const READY_TIMEOUT_MS = 180_000;

/** RSS of `pid` in MiB (Linux /proc, else `ps`); undefined when the process is gone. */
function rssMiB(pid: number): number | undefined {
  try {
    const status = `/proc/${pid}/status`;
    if (existsSync('/proc/self/status')) {
      const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(status, 'utf8'));
      return m ? Number(m[1]) / 1024 : undefined;
    }
    const kb = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return Number.isFinite(kb) && kb > 0 ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

type Phase = 'start' | 'idle' | 'load';

/** One service process, its log lines and its RSS peaks by phase (MiB). */
interface Service {
  name: string;
  child: ChildProcess;
  peaks: Record<Phase, number>;
  ready: Promise<void>;
  exited: Promise<void>;
}

function startService(name: string, entry: readonly string[], readyMsg: string, env: Record<string, string>): Service {
  const child = spawn(process.execPath, ['--import', 'tsx', ...entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const peaks: Record<Phase, number> = { start: 0, idle: 0, load: 0 };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const tail: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after ${READY_TIMEOUT_MS} ms; last lines:\n${tail.join('\n')}`)), READY_TIMEOUT_MS);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        try {
          const entry = JSON.parse(line) as { msg?: string; level?: number };
          if (entry.msg === readyMsg) {
            clearTimeout(timer);
            resolve();
          } else if ((entry.level ?? 0) >= 50) say(`${name}: ${line.slice(0, 300)}`);
        } catch {
          // not a log line (e.g. a stack trace on stderr): kept in the tail for the error message
        }
      });
    }
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready; last lines:\n${tail.join('\n')}`));
    });
  });
  ready.catch(() => undefined);
  return { name, child, peaks, ready, exited };
}

async function stopService(s: Service): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill('SIGTERM');
  const killed = setTimeout(() => s.child.kill('SIGKILL'), 15_000);
  await s.exited;
  clearTimeout(killed);
}

const mib = (x: number) => `${x.toFixed(0)} MiB`;

/** Section (h): runs last, as it starts processes of its own. */
export const sectionH: BenchSection = {
  letter: 'h',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack, runId, docs } = ctx;
    const { db, config } = stack;
    say();
    say(`## (h) RSS of the API and each worker as separate processes under the load of (a) and (c) ${elapsed()}`);
    await drain(db, '(h) start');
    const port = await getFreePort();
    const env = {
      DATABASE_URL: stack.databaseUrl,
      DATABASE_POOL_MAX: String(config.database.poolMax),
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_NAMESPACE: config.temporal.namespace,
      GITHUB_API_URL: stack.github.url,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      TEMPORAL_TASK_QUEUE_PREFIX: `rss-${runId}-`,
      AI_PROVIDER: 'local',
      SCHEDULES_ENABLED: 'false',
    };
    const specs = [
      ['API', ['src/server.ts'], 'api ready'],
      ['jobs worker', ['src/workers/main.ts', '--queue', 'jobs'], 'worker-jobs running'],
      ['ai worker', ['src/workers/main.ts', '--queue', 'ai'], 'worker-ai running'],
      ['github worker', ['src/workers/main.ts', '--queue', 'github'], 'worker-github running'],
    ] as const;
    let phase: Phase = 'start';
    const services = specs.map(([name, entry, msg]) => {
      const s = startService(name, entry, msg, env);
      started(`${name} process`, () => stopService(s));
      return s;
    });
    const floor = spawn(process.execPath, ['--import', 'tsx', '-e', 'setInterval(() => {}, 1000)'], { cwd: ROOT, stdio: 'ignore' });
    const floorExited = new Promise<void>((resolve) => floor.once('exit', () => resolve()));
    started('idle node process', async () => {
      if (floor.exitCode === null && floor.signalCode === null) floor.kill('SIGKILL');
      await floorExited;
    });
    let floorPeak = 0;
    const sampler = setInterval(() => {
      for (const s of services) {
        const v = s.child.pid === undefined ? undefined : rssMiB(s.child.pid);
        if (v !== undefined) s.peaks[phase] = Math.max(s.peaks[phase], v);
      }
      const f = floor.pid === undefined ? undefined : rssMiB(floor.pid);
      if (f !== undefined) floorPeak = Math.max(floorPeak, f);
    }, SAMPLE_MS);
    started('RSS sampler', async () => clearInterval(sampler));

    await Promise.all(services.map((s) => s.ready));
    say(`the four processes are ready (API on 127.0.0.1:${port}, task queues rss-${runId}-*)`);
    // Fixed windows: 3 s for the start-up peak to settle, then 2 s of idle samples.
    await sleep(3000);
    phase = 'idle';
    await sleep(2000);
    phase = 'load';

    const user = await createUserWithToken(db, `bench-rss-${runId}`);
    const headers = { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' };
    const url = `http://127.0.0.1:${port}`;
    const posts = await runLoad({ url, method: 'POST', paths: ['/scraps'], headers, connections: POST_CLIENTS, amount: sizes.posts, docs, tag: `bench ${runId} h` });
    const jobs = await db.asyncJob.findMany({ where: { userId: user.userId }, select: { jobId: true } });
    if (jobs.length === 0) throw new Error('(h): no POST /scraps was accepted by the API process');
    // The child workers run those jobs meanwhile.
    const reads = await runLoad({ url, method: 'GET', paths: jobs.map((j) => `/async-jobs/${j.jobId}`), headers, connections: READ_CONNECTIONS, duration: sizes.readSeconds });
    await drain(db, '(h)');
    clearInterval(sampler);
    const failed = await db.asyncJob.count({ where: { userId: user.userId, status: 'FAILED' } });
    say(`load: ${posts.ok} POST /scraps accepted (${jobs.length} jobs, ${failed} FAILED), then ${reads.ok} GET /async-jobs/{id} in ${reads.duration.toFixed(1)} s while they ran`);
    if (posts.non2xx + posts.errors + posts.timeouts + reads.non2xx + reads.errors + reads.timeouts > 0) say('WARNING: non-2xx responses or errors in (h)');
    say('| Process | RSS peak while starting | RSS idle | RSS peak under the load |');
    say('|---|---|---|---|');
    for (const s of services) say(`| ${s.name} | ${mib(s.peaks.start)} | ${mib(s.peaks.idle)} | ${mib(s.peaks.load)} |`);
    say(`floor: an idle \`node --import tsx\` process: ${mib(floorPeak)}`);
    for (const s of services) await stopService(s);
    return services.map((s) => ({
      measure: `(h) RSS of the ${s.name} process, peak under the bench load (starting / idle)`,
      subject: `${mib(s.peaks.load)} (${mib(s.peaks.start)} / ${mib(s.peaks.idle)})`,
      baseline: `${mib(floorPeak)} idle node --import tsx`,
      ratio: `${(s.peaks.load / floorPeak).toFixed(2)}×`,
    }));
  },
};
