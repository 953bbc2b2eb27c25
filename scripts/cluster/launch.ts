/**
 * Starts `scripts/cluster/main.ts` (what `npm run cluster` runs) as a child process with a state
 * file and waits until it is ready: how the cluster test suite and the benchmark get a cluster of
 * their own. The child stops everything it started on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClusterState } from './cluster';
import { controlClient, type ControlClient, type ControlEndpoint } from './control';

/** A cluster running in a child process. */
export interface LaunchedCluster {
  child: ChildProcess;
  stateFile: string;
  control: ControlClient;
  state: ClusterState;
  /** The child's output so far (its last 20 000 characters). */
  output(): string;
  /** True once the child exited (it stops on its own only when a process crashed). */
  exited(): boolean;
  /** SIGTERM, then waits for its exit (SIGKILL after `graceMs`); returns its exit code. Idempotent. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Options of {@link launchCluster}. */
export interface LaunchOptions {
  /** Service environment overrides (`--env KEY=VALUE`). */
  env?: Record<string, string>;
  /** Bound on start-up, ms (default 15 min). */
  readyMs?: number;
  /** Copies the child's output here as it comes (debugging). */
  echo?: (chunk: string) => void;
}

/**
 * Launches the cluster and resolves once its state file is written.
 * @throws Error with the child's output when it exits first or is not ready in time.
 */
export async function launchCluster(o: LaunchOptions = {}): Promise<LaunchedCluster> {
  const root = path.resolve(__dirname, '..', '..');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cluster-launch-'));
  const stateFile = path.join(dir, 'state.json');
  const args = ['--import', 'tsx', path.join(root, 'scripts', 'cluster', 'main.ts'), '--state-file', stateFile, '--exit-with-parent', ...Object.entries(o.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${v}`])];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
    o.echo?.(b.toString());
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exitedNow = () => child.exitCode !== null || child.signalCode !== null;
  const exitP = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<number | null> | undefined;
  const stop = (graceMs = 120_000) =>
    (stopping ??= (async () => {
      if (!exitedNow()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exitP;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
      return child.exitCode;
    })());
  const deadline = Date.now() + (o.readyMs ?? 15 * 60_000);
  while (!existsSync(stateFile)) {
    if (exitedNow()) {
      await stop();
      throw new Error(`the cluster exited before it was ready (${child.exitCode ?? child.signalCode}):\n${out}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the cluster was not ready in time:\n${out}`);
    }
    await Promise.race([sleep(500), exitP]);
  }
  const { control: endpoint, state } = JSON.parse(readFileSync(stateFile, 'utf8')) as { control: ControlEndpoint; state: ClusterState };
  return { child, stateFile, control: controlClient(endpoint), state, output: () => out, exited: exitedNow, stop };
}
