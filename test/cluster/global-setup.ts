/**
 * Jest globalSetup of the cluster suite: launches the production topology (`npm run cluster`,
 * scripts/cluster/launch.ts) and exports CLUSTER_STATE_FILE to the test files, which drive it
 * through its control API. CLUSTER_DEBUG=1 echoes the cluster's output.
 */
import { launchCluster, type LaunchedCluster } from '../../scripts/cluster/launch';

/** globalThis key of the launched cluster, for global-teardown.ts. */
export const CLUSTER_KEY = '__durableJobsCluster';

/** Environment of the cluster's services in the tests: short reconcile and poll intervals. */
export const CLUSTER_TEST_ENV = {
  RECONCILE_INTERVAL_SECONDS: '10',
  RECONCILE_GRACE_SECONDS: '10',
  ST_POLL_INTERVAL_SECONDS: '5',
  ST_POLL_SOURCE_KINDS: 'study_question',
};

export default async function globalSetup(): Promise<void> {
  const t0 = Date.now();
  const cluster = await launchCluster({ env: CLUSTER_TEST_ENV, ...(process.env.CLUSTER_DEBUG ? { echo: (s: string) => process.stderr.write(s) } : {}) });
  (globalThis as Record<string, unknown>)[CLUSTER_KEY] = cluster;
  process.env.CLUSTER_STATE_FILE = cluster.stateFile;
  process.stderr.write(`\ncluster started in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}

export type { LaunchedCluster };
