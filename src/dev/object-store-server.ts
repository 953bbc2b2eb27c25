/**
 * Local S3-compatible server for the demo, tests and CI (PO-6): moto's `moto_server` from the
 * project venv (installed by scripts/setup.sh), started on a free port of 127.0.0.1, in-memory,
 * offline. Production points OBJECT_STORE_ENDPOINT at AWS S3 or MinIO instead. Names no family.
 */
import { accessSync, constants as fsConstants } from 'node:fs';
import { get as httpGet } from 'node:http';
import path from 'node:path';
import { startChildServer } from './child-server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const LOCAL_MOTO = path.join(REPO_ROOT, '.tools', 'venv', 'bin', 'moto_server');
const STOP_GRACE_MS = 5_000;

/** Dummy credentials moto accepts (it checks none); never used against a real store. */
export const LOCAL_OBJECT_STORE_CREDENTIALS = { accessKeyId: 'local-test-key', secretAccessKey: 'local-test-secret' } as const;

/** A running local S3-compatible server. */
export interface LocalObjectStoreServer {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** SIGTERM (SIGKILL after a bound) to the server's process group; idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startLocalObjectStore}. */
export interface LocalObjectStoreOptions {
  /** Port; 0 or absent picks a free one. */
  port?: number;
  /** Bound on start-up, ms (default 30 000). */
  startTimeoutMs?: number;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Path of `moto_server`: `MOTO_SERVER_PATH`, then `<repo>/.tools/venv/bin/moto_server`; undefined when neither exists.
 * @throws Error when `MOTO_SERVER_PATH` is set but not executable.
 */
export function findMotoServer(): string | undefined {
  const fromEnv = process.env.MOTO_SERVER_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`MOTO_SERVER_PATH=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  return isExecutable(LOCAL_MOTO) ? LOCAL_MOTO : undefined;
}

/** One GET without keep-alive (a pooled socket would keep the caller's process alive), resolving to the status. */
function probe(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', reject);
  });
}

/**
 * Starts `moto_server -H 127.0.0.1 -p <port>` on a port verified to be its own (src/dev/child-server.ts)
 * and resolves once it answers HTTP. The server dies with this process (a shell watchdog kills its
 * group within about a second even after a SIGKILL).
 * @throws Error when moto is not installed (run scripts/setup.sh); ChildServerError when it exits or is not ready in time.
 */
export async function startLocalObjectStore(opts: LocalObjectStoreOptions = {}): Promise<LocalObjectStoreServer> {
  const bin = findMotoServer();
  if (!bin) throw new Error('moto_server not found (MOTO_SERVER_PATH, .tools/venv/bin/moto_server): run `bash scripts/setup.sh`');
  const host = '127.0.0.1';
  const server = await startChildServer({
    name: 'moto_server',
    command: bin,
    args: ([port]) => ['-H', host, '-p', String(port)],
    host,
    ports: opts.port ? [opts.port] : undefined,
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
    startTimeoutMs: opts.startTimeoutMs ?? 30_000,
    stopGraceMs: STOP_GRACE_MS,
    ready: async ([port]) => (await probe(`http://${host}:${port}/`)) < 500,
  });
  return { endpoint: `http://${host}:${server.ports[0]}`, stop: server.stop };
}
