/**
 * Jest globalTeardown of the cluster suite: SIGTERM to the cluster supervisor, which stops every
 * process it started; fails when it does not exit in time, or exited earlier (a process crashed).
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { CLUSTER_KEY } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const held = (globalThis as Record<string, unknown>)[CLUSTER_KEY] as { child: ChildProcess; dir: string; output: () => string } | undefined;
  if (!held) return;
  delete (globalThis as Record<string, unknown>)[CLUSTER_KEY];
  const { child } = held;
  const crashed = child.exitCode !== null || child.signalCode !== null;
  if (!crashed) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(held.dir, { recursive: true, force: true });
  if (crashed || child.exitCode !== 0) throw new Error(`the cluster ${crashed ? 'stopped during the tests' : `exited with ${child.exitCode ?? child.signalCode}`}:\n${held.output()}`);
}
