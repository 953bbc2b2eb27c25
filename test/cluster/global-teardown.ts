/**
 * Jest globalTeardown of the cluster suite: stops the cluster (SIGTERM: it stops every process it
 * started); fails when it had stopped on its own during the tests (a process crashed) or did not
 * exit cleanly, with its output.
 */
import { CLUSTER_KEY, type LaunchedCluster } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const cluster = (globalThis as Record<string, unknown>)[CLUSTER_KEY] as LaunchedCluster | undefined;
  if (!cluster) return;
  delete (globalThis as Record<string, unknown>)[CLUSTER_KEY];
  const crashed = cluster.exited();
  const code = await cluster.stop();
  if (crashed || code !== 0) throw new Error(`the cluster ${crashed ? 'stopped during the tests' : `exited with ${code}`}:\n${cluster.output()}`);
}
