/**
 * Local S3-compatible server for the demo, tests and CI (PO-6): moto's `moto_server` from the
 * project venv (installed by scripts/setup.sh), started on a free port of 127.0.0.1, in-memory,
 * offline. Production points OBJECT_STORE_ENDPOINT at AWS S3 or MinIO instead. Names no family.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getFreePort } from './temporal-server';

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

/** A sleep that never keeps the process alive on its own (a bound raced against an exit). */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/**
 * Starts `moto_server -H 127.0.0.1 -p <port>` and resolves once it answers HTTP. The server dies with
 * this process (a shell watchdog kills its group within about a second even after a SIGKILL).
 * @throws Error when moto is not installed (run scripts/setup.sh), exits, or is not ready in time.
 */
export async function startLocalObjectStore(opts: LocalObjectStoreOptions = {}): Promise<LocalObjectStoreServer> {
  const bin = findMotoServer();
  if (!bin) throw new Error('moto_server not found (MOTO_SERVER_PATH, .tools/venv/bin/moto_server): run `bash scripts/setup.sh`');
  const host = '127.0.0.1';
  const port = opts.port || (await getFreePort(host));
  const dir = mkdtempSync(path.join(tmpdir(), 'moto-'));
  const logFile = path.join(dir, 'server.log');
  const out = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(bin, ['-H', host, '-p', String(port)], { detached: true, stdio: ['ignore', out, out], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  } finally {
    closeSync(out);
  }
  const pid = child.pid;
  if (pid === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start ${bin}`);
  }
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const dog = spawn(
    '/bin/sh',
    ['-c', 'while kill -0 "$0" 2>/dev/null; do sleep 1; done; kill -TERM "-$1" 2>/dev/null; sleep 3; kill -KILL "-$1" 2>/dev/null', String(process.pid), String(pid)],
    { detached: true, stdio: 'ignore' },
  );
  dog.unref();
  const killOnExit = () => signalGroup(pid, 'SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      signalGroup(pid, 'SIGTERM');
      await Promise.race([exitPromise, sleep(STOP_GRACE_MS)]);
      if (!exited) {
        signalGroup(pid, 'SIGKILL');
        await Promise.race([exitPromise, sleep(STOP_GRACE_MS)]);
      }
      process.removeListener('exit', killOnExit);
      if (dog.pid !== undefined) signalGroup(dog.pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    })());

  const endpoint = `http://${host}:${port}`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  let last: unknown;
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      const status = await probe(`${endpoint}/`);
      if (status < 500) return { endpoint, stop };
      last = new Error(`HTTP ${status}`);
    } catch (err) {
      last = err;
    }
    await Promise.race([exitPromise, sleep(150)]);
  }
  let logText = '';
  try {
    logText = readFileSync(logFile, 'utf8').slice(-3000);
  } catch {
    // no log
  }
  await stop();
  throw new Error(`moto_server on ${endpoint} ${exited ? 'exited during start-up' : `not ready: ${String(last)}`}\n${logText}`);
}
