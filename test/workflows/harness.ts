/** Time-skipping test environment and workflow bundle shared by the workflow tests. */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { findTemporalTestServer } from '../../src/dev/temporal-server';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // already installed in this jest worker
}

/** Starts the time-skipping test server: the local binary when present, else the SDK's download. */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const path = findTemporalTestServer();
  return TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : {});
}

/** Bundles `src/workflows` (or another workflows module) once. */
export function bundle(workflowsPath = require.resolve('../../src/workflows')): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
}
