/**
 * Jest globalSetup of the cluster suite: starts `scripts/cluster/main.ts` (the production topology,
 * `npm run cluster`) as a child process with a state file, waits until it is ready, and exports
 * CLUSTER_STATE_FILE to the test files. The tests drive it through its control API.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** globalThis key of the supervisor, for global-teardown.ts. */
export const CLUSTER_KEY = '__durableJobsCluster';

/** Environment of the cluster's services in the tests: short reconcile and poll intervals. */
export const CLUSTER_TEST_ENV = {
  RECONCILE_INTERVAL_SECONDS: '10',
  RECONCILE_GRACE_SECONDS: '10',
  ST_POLL_INTERVAL_SECONDS: '5',
  ST_POLL_SOURCE_KINDS: 'study_question',
};

const READY_MS = 15 * 60_000;

export default async function globalSetup(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cluster-test-'));
  const stateFile = path.join(dir, 'state.json');
  const args = ['--import', 'tsx', path.join(root, 'scripts', 'cluster', 'main.ts'), '--state-file', stateFile, ...Object.entries(CLUSTER_TEST_ENV).flatMap(([k, v]) => ['--env', `${k}=${v}`])];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-20_000);
    if (process.env.CLUSTER_DEBUG) process.stderr.write(b);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  (globalThis as Record<string, unknown>)[CLUSTER_KEY] = { child, dir, output: () => output };
  const t0 = Date.now();
  while (!existsSync(stateFile)) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the cluster exited before it was ready (${child.exitCode ?? child.signalCode}):\n${output}`);
    if (Date.now() - t0 > READY_MS) {
      child.kill('SIGTERM');
      throw new Error(`the cluster was not ready after ${READY_MS / 1000} s:\n${output}`);
    }
    await sleep(500);
  }
  process.env.CLUSTER_STATE_FILE = stateFile;
  process.stderr.write(`\ncluster started in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}
