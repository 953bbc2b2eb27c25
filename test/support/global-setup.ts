/**
 * Jest globalSetup: one PostgreSQL 15 server (with the test-database template migrated, see
 * ./postgres.ts), one Temporal dev server, one S3-compatible server
 * (moto, PO-6) and the workflow bundles (./workflow-bundles.ts) for the whole run, shared by every
 * test file through `TEST_PG_ADMIN_URL`, `TEST_TEMPORAL_ADDRESS`, `TEST_TEMPORAL_UI_URL`,
 * `OBJECT_STORE_*` (see ./object-store.ts) and `TEST_WORKFLOW_BUNDLE_DIR`.
 * Variables already set are reused and nothing is started for them (point them at running servers
 * while developing). Handles stay on globalThis for global-teardown.ts.
 */
import { startTestObjectStore } from './object-store';
import { prepareTemplate, startPostgres, type TestPostgres } from './postgres';
import { startTestTemporal } from './temporal';
import { BUNDLE_DIR_ENV, buildSharedBundles } from './workflow-bundles';

/** What global-teardown.ts stops, in order. */
export interface TestServerHandles {
  stops: Array<{ name: string; stop: () => Promise<void> }>;
}

/** globalThis key of the {@link TestServerHandles}. */
export const HANDLES_KEY = '__durableJobsTestServers';

type WithHandles = typeof globalThis & { [HANDLES_KEY]?: TestServerHandles };

async function timed<T>(start: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await start();
  return { value, ms: Date.now() - t0 };
}

/** PostgreSQL with its test-database template migrated ({@link prepareTemplate}). */
async function startMigratedPostgres(): Promise<TestPostgres> {
  const pg = await startPostgres();
  try {
    await prepareTemplate(pg.adminUrl);
  } catch (err) {
    await pg.stop();
    throw err;
  }
  return pg;
}

export default async function globalSetup(): Promise<void> {
  const handles: TestServerHandles = { stops: [] };
  (globalThis as WithHandles)[HANDLES_KEY] = handles;

  const reuseObjectStore = Boolean(process.env.OBJECT_STORE_ENDPOINT);
  const [pg, temporal, objects, bundles] = await Promise.allSettled([
    process.env.TEST_PG_ADMIN_URL ? undefined : timed(startMigratedPostgres),
    process.env.TEST_TEMPORAL_ADDRESS ? undefined : timed(startTestTemporal),
    timed(startTestObjectStore),
    process.env[BUNDLE_DIR_ENV] ? undefined : timed(buildSharedBundles),
  ]);
  if (pg.status === 'fulfilled' && pg.value) handles.stops.push({ name: 'PostgreSQL', stop: pg.value.value.stop });
  if (temporal.status === 'fulfilled' && temporal.value) {
    handles.stops.push({ name: 'Temporal', stop: temporal.value.value.stop });
  }
  if (objects.status === 'fulfilled' && objects.value.value.stop) {
    handles.stops.push({ name: 'object store', stop: objects.value.value.stop });
  }
  if (bundles.status === 'fulfilled' && bundles.value) handles.stops.push({ name: 'workflow bundles', stop: bundles.value.value.remove });
  const failures = [pg, temporal, objects, bundles].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failures.length > 0) {
    await Promise.allSettled(handles.stops.map((h) => h.stop()));
    handles.stops = [];
    throw new AggregateError(
      failures.map((f) => f.reason as unknown),
      `test servers did not start: ${failures.map((f) => String(f.reason)).join('; ')}`,
    );
  }

  const started: string[] = [];
  if (pg.status === 'fulfilled' && pg.value) {
    process.env.TEST_PG_ADMIN_URL = pg.value.value.adminUrl;
    started.push(`PostgreSQL ${pg.value.ms} ms`);
  }
  if (temporal.status === 'fulfilled' && temporal.value) {
    process.env.TEST_TEMPORAL_ADDRESS = temporal.value.value.address;
    process.env.TEST_TEMPORAL_UI_URL = temporal.value.value.uiUrl;
    started.push(`Temporal ${temporal.value.ms} ms (${temporal.value.value.address}, UI ${temporal.value.value.uiUrl})`);
  }
  if (objects.status === 'fulfilled' && !reuseObjectStore) {
    started.push(`object store ${objects.value.ms} ms (${objects.value.value.endpoint})`);
  }
  if (bundles.status === 'fulfilled' && bundles.value) {
    process.env[BUNDLE_DIR_ENV] = bundles.value.value.dir;
    started.push(`workflow bundles ${bundles.value.ms} ms`);
  }
  if (started.length > 0) process.stderr.write(`\ntest servers started: ${started.join(', ')}\n`);
}
