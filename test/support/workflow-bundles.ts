/**
 * The workflow bundles of a test run, built once by globalSetup (webpack over src/workflows costs
 * seconds of CPU per build) into a temporary folder named by TEST_WORKFLOW_BUNDLE_DIR, and read by
 * every test file. Without that variable (a test file run outside the jest config) they are built
 * in the process, once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../src/telemetry/temporal';

/** Environment variable naming the folder of the prebuilt bundles. */
export const BUNDLE_DIR_ENV = 'TEST_WORKFLOW_BUNDLE_DIR';

/** `plain`: src/workflows; `traced`: with the tracing workflow interceptors (src/telemetry/temporal.ts). */
export type BundleKind = 'plain' | 'traced';

const WORKFLOWS = require.resolve('../../src/workflows');

function build(kind: BundleKind): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS,
    ...(kind === 'traced' ? { workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES] } : {}),
    logger: new DefaultLogger('WARN'),
  });
}

/** Builds both bundles into a new temporary folder; returns it and its remover. */
export async function buildSharedBundles(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'workflow-bundles-'));
  for (const kind of ['plain', 'traced'] as const) {
    const b = await build(kind);
    writeFileSync(path.join(dir, `${kind}.js`), b.code);
    writeFileSync(path.join(dir, `${kind}.js.map`), b.sourceMap);
  }
  return { dir, remove: async () => rmSync(dir, { recursive: true, force: true }) };
}

const cache = new Map<BundleKind, Promise<WorkflowBundleWithSourceMap>>();

/** The run's bundle of `kind`: read from TEST_WORKFLOW_BUNDLE_DIR when set, else built once in this process. */
export function sharedBundle(kind: BundleKind = 'plain'): Promise<WorkflowBundleWithSourceMap> {
  let b = cache.get(kind);
  if (!b) {
    const dir = process.env[BUNDLE_DIR_ENV];
    b = dir
      ? Promise.resolve({ code: readFileSync(path.join(dir, `${kind}.js`), 'utf8'), sourceMap: readFileSync(path.join(dir, `${kind}.js.map`), 'utf8') })
      : build(kind);
    cache.set(kind, b);
  }
  return b;
}
