/**
 * The environment of the cluster's API and worker processes (what the config sections read, src/config), with fresh
 * secrets per cluster so that the processes run with NODE_ENV=production, and the compiled builds
 * a rolling restart switches the workers to.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BuildRef } from './services';

const run = promisify(execFile);

/** A random key ring entry `kid:base64(32 bytes)`. */
export function keyRingEntry(kid: string): string {
  return `${kid}:${randomBytes(32).toString('base64')}`;
}

/** Inputs of {@link buildServiceEnv}. */
export interface ServiceEnvInputs {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  githubUrl: string;
  portalUrl: string;
  /** Where the portal worker posts its signed callbacks (the API balancer). */
  callbackUrl: string;
  objectStore: { endpoint: string; accessKeyId: string; secretAccessKey: string };
  /** Overrides, applied last. */
  extra: Record<string, string>;
}

/** The variables every API and worker process of the cluster gets (API_PORT is added per API). */
export function buildServiceEnv(i: ServiceEnvInputs): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    API_HOST: '127.0.0.1',
    DATABASE_URL: i.databaseUrl,
    DATABASE_POOL_MAX: '10',
    TEMPORAL_ADDRESS: i.temporalAddress,
    TEMPORAL_NAMESPACE: i.namespace,
    TEMPORAL_TASK_QUEUE_PREFIX: '',
    AI_PROVIDER: 'local',
    GITHUB_API_URL: i.githubUrl,
    GITHUB_TOKEN_KEYS: keyRingEntry('c1'),
    PAYLOAD_CODEC_KEYS: keyRingEntry('c1'),
    CODEC_SERVER_OPERATOR_TOKEN: randomBytes(24).toString('hex'),
    AI_INPUT_HASH_KEY: randomBytes(32).toString('hex'),
    AI_RUN_INPUT_KEYS: keyRingEntry('c1'),
    WEBHOOK_SECRET_KEYS: keyRingEntry('c1'),
    PORTAL_CALLBACK_SECRETS: randomBytes(24).toString('hex'),
    PORTAL_SUWON_BASE_URL: i.portalUrl,
    PORTAL_CALLBACK_URL: i.callbackUrl,
    OBJECT_STORE_ENDPOINT: i.objectStore.endpoint,
    OBJECT_STORE_ACCESS_KEY_ID: i.objectStore.accessKeyId,
    OBJECT_STORE_SECRET_ACCESS_KEY: i.objectStore.secretAccessKey,
    OBJECT_STORE_FORCE_PATH_STYLE: 'true',
    // Two API processes share the rate limits through the database.
    RATE_LIMIT_STORE: 'postgres',
    ...i.extra,
  };
}

/**
 * Compiles src/ with the project's build config (`tsc -p tsconfig.build.json`) into
 * `.data/cluster-builds/<id>` (git-ignored, inside the checkout so that its node_modules resolves):
 * a new build of the same code, whose workflow bundle, and so its Temporal build ID, differs from
 * the sources'.
 * @throws Error with the compiler's output when it fails.
 */
export async function buildWorkersInto(root: string): Promise<BuildRef & { kind: 'build' }> {
  const id = `b${Date.now().toString(36)}`;
  const dir = path.join(root, '.data', 'cluster-builds', id);
  mkdirSync(dir, { recursive: true });
  try {
    await run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', dir], { cwd: root, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`tsc build into ${dir} failed: ${e.message}\n${(e.stdout ?? '') + (e.stderr ?? '')}`);
  }
  return { kind: 'build', dir, id };
}
