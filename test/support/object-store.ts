/**
 * PO-6 object storage for tests: globalSetup starts one moto server per jest run and exports
 * OBJECT_STORE_* (endpoint, region, a created bucket, dummy credentials, path-style) to every
 * worker; these helpers read them back as config and as a store.
 */
import { loadConfig, type Config } from '../../src/families';
import { LOCAL_OBJECT_STORE_CREDENTIALS, startLocalObjectStore } from '../../src/dev/object-store-server';
import { createS3ObjectStore, type S3ObjectStore } from '../../src/storage/s3';
import { SERVER_START_TIMEOUT_MS } from './poll';

/** Bucket the test run uses (created by globalSetup). */
export const TEST_OBJECT_STORE_BUCKET = 'test-portal-results';

const NAMES = [
  'OBJECT_STORE_ENDPOINT',
  'OBJECT_STORE_REGION',
  'OBJECT_STORE_BUCKET',
  'OBJECT_STORE_PREFIX',
  'OBJECT_STORE_ACCESS_KEY_ID',
  'OBJECT_STORE_SECRET_ACCESS_KEY',
  'OBJECT_STORE_FORCE_PATH_STYLE',
] as const;

/**
 * The OBJECT_STORE_* variables globalSetup exported, to spread into a test's `loadConfig({...})`.
 * @throws Error when the tests were not started through jest's globalSetup.
 */
export function testObjectStoreEnv(): Record<string, string> {
  if (!process.env.OBJECT_STORE_ENDPOINT) throw new Error('OBJECT_STORE_ENDPOINT is not set: run the tests through jest (globalSetup)');
  const env: Record<string, string> = {};
  for (const name of NAMES) {
    const v = process.env[name];
    if (v) env[name] = v;
  }
  return env;
}

/** `config.objectStore` of the test object store (override e.g. `OBJECT_STORE_PREFIX`). */
export function testObjectStoreConfig(overrides: Record<string, string> = {}): Config['objectStore'] {
  return loadConfig({ NODE_ENV: 'test', ...testObjectStoreEnv(), ...overrides }).objectStore;
}

/** A store on the test bucket; call `close()` after use. */
export function testObjectStore(overrides: Record<string, string> = {}): S3ObjectStore {
  return createS3ObjectStore(testObjectStoreConfig(overrides));
}

/**
 * globalSetup part: starts moto (unless OBJECT_STORE_ENDPOINT is already set), exports OBJECT_STORE_*
 * and creates the bucket. Returns the server's stop, or undefined when an existing store is reused.
 */
export async function startTestObjectStore(): Promise<{ endpoint: string; stop?: () => Promise<void> }> {
  let stop: (() => Promise<void>) | undefined;
  if (!process.env.OBJECT_STORE_ENDPOINT) {
    const server = await startLocalObjectStore({ startTimeoutMs: SERVER_START_TIMEOUT_MS });
    stop = server.stop;
    Object.assign(process.env, {
      OBJECT_STORE_ENDPOINT: server.endpoint,
      OBJECT_STORE_REGION: 'us-east-1',
      OBJECT_STORE_BUCKET: TEST_OBJECT_STORE_BUCKET,
      OBJECT_STORE_ACCESS_KEY_ID: LOCAL_OBJECT_STORE_CREDENTIALS.accessKeyId,
      OBJECT_STORE_SECRET_ACCESS_KEY: LOCAL_OBJECT_STORE_CREDENTIALS.secretAccessKey,
      OBJECT_STORE_FORCE_PATH_STYLE: 'true',
    });
  }
  const store = testObjectStore();
  try {
    await store.ensureBucket();
  } catch (err) {
    await stop?.();
    throw err;
  } finally {
    store.close();
  }
  return { endpoint: process.env.OBJECT_STORE_ENDPOINT!, ...(stop ? { stop } : {}) };
}
