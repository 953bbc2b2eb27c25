/**
 * Local Temporal for development, tests and the demo: starts the Temporal CLI dev server (real
 * server, SQLite persistence, Web UI) with this service's search attributes (DC-4), and registers
 * those attributes on any server through the operator API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants as fsConstants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID, SEARCH_ATTRIBUTE_NAMES } from '../core/contracts';
import { ensureSearchAttributes } from '../core/search-attributes';

export { ensureSearchAttributes } from '../core/search-attributes';

/** Options of {@link startTemporalDevServer}. */
export interface TemporalDevServerOptions {
  /** Frontend gRPC port; 0 or absent picks a free port. */
  port?: number;
  /** Web UI port; 0 or absent picks a free port. */
  uiPort?: number;
  /** SQLite file for persistence; absent keeps state in memory. */
  dbFilename?: string;
  /** Namespace to create besides `default`, and in which the search attributes are checked. */
  namespace?: string;
  /** File that receives the server's stdout and stderr (appended); absent uses a temp file. */
  logFile?: string;
  /** Bound on start-up, in ms (default 60 000). */
  startTimeoutMs?: number;
  /** Where progress and fallback notices go (default: stderr). */
  log?: (line: string) => void;
  /** Remote codec endpoint the Web UI decodes payloads with (`--ui-codec-endpoint`, e.g. `http://127.0.0.1:3000/codec`). */
  uiCodecEndpoint?: string;
}

/** A running dev server. */
export interface TemporalDevServer {
  /** `host:port` of the frontend. */
  address: string;
  /** Base URL of the Web UI. */
  uiUrl: string;
  /**
   * SIGTERM, then SIGKILL after a bound, to the server's whole process group; idempotent. The
   * server keeps this Node process alive until stopped, and dies with it in any case.
   */
  stop(): Promise<void>;
}

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const LOCAL_CLI = path.join(REPO_ROOT, '.tools', 'venv', 'bin', 'temporal');
const LOCAL_TEST_SERVER = path.join(REPO_ROOT, '.tools', 'venv', 'bin', 'temporal-test-server');
const STOP_GRACE_MS = 10_000;
const KILL_WAIT_MS = 5_000;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function fromEnvPath(variable: string): string | undefined {
  const value = process.env[variable];
  if (!value) return undefined;
  if (!isExecutable(value)) throw new Error(`${variable}=${value} is not an executable file`);
  return value;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/**
 * Path of the Temporal CLI: `TEMPORAL_CLI_PATH`, then `<repo>/.tools/venv/bin/temporal`, then
 * `temporal` on PATH; undefined when none exists.
 * @throws Error when `TEMPORAL_CLI_PATH` is set but not executable.
 */
export function findTemporalCli(): string | undefined {
  return fromEnvPath('TEMPORAL_CLI_PATH') ?? (isExecutable(LOCAL_CLI) ? LOCAL_CLI : undefined) ?? onPath('temporal');
}

/**
 * Path of the time-skipping test server: `TEMPORAL_TEST_SERVER_PATH`, then
 * `<repo>/.tools/venv/bin/temporal-test-server`; undefined means "let the SDK download it".
 * @throws Error when `TEMPORAL_TEST_SERVER_PATH` is set but not executable.
 */
export function findTemporalTestServer(): string | undefined {
  return fromEnvPath('TEMPORAL_TEST_SERVER_PATH') ?? (isExecutable(LOCAL_TEST_SERVER) ? LOCAL_TEST_SERVER : undefined);
}

/** A TCP port that was free on `host` a moment ago (the OS picks it). */
export function getFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function tail(file: string, bytes = 4000): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.slice(-bytes).trim();
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/**
 * Kills `pgid`'s process group within about a second of this Node process dying in any way
 * (including SIGKILL), so that an interrupted test run leaves no server behind.
 */
function spawnWatchdog(pgid: number): ChildProcess {
  const script =
    'while kill -0 "$0" 2>/dev/null; do sleep 1; done; kill -TERM "-$1" 2>/dev/null; sleep 5; kill -KILL "-$1" 2>/dev/null';
  const dog = spawn('/bin/sh', ['-c', script, String(process.pid), String(pgid)], { detached: true, stdio: 'ignore' });
  dog.unref();
  return dog;
}

/**
 * Starts `temporal server start-dev` on 127.0.0.1 with the DC-4 search attributes and resolves once
 * the frontend answers and the attributes are visible in the namespace. Without a CLI binary it
 * falls back to `@temporalio/testing`'s downloaded dev server (needs internet) and logs that.
 * @throws Error with the tail of the server log when the process exits or start-up exceeds the bound.
 */
export async function startTemporalDevServer(opts: TemporalDevServerOptions = {}): Promise<TemporalDevServer> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cli = findTemporalCli();
  if (!cli) return startWithSdkDownload(opts, log);
  const attempts = opts.port ? 1 : 2; // a randomly chosen port can be taken in between: retry once
  for (let attempt = 1; ; attempt++) {
    try {
      return await startCli(cli, opts);
    } catch (err) {
      if (attempt >= attempts) throw err;
      log(`temporal dev server: start failed (${(err as Error).message.split('\n')[0]}), retrying on new ports`);
    }
  }
}

async function startCli(cli: string, opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const host = '127.0.0.1';
  const port = opts.port || (await getFreePort(host));
  const uiPort = opts.uiPort || (await getFreePort(host));
  const namespace = opts.namespace ?? 'default';
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;

  let tempDir: string | undefined;
  let logFile = opts.logFile;
  if (!logFile) {
    tempDir = mkdtempSync(path.join(tmpdir(), 'temporal-dev-'));
    logFile = path.join(tempDir, 'server.log');
  }
  const args = ['server', 'start-dev', '--ip', host, '--port', String(port), '--ui-port', String(uiPort)];
  for (const name of SEARCH_ATTRIBUTE_NAMES) args.push('--search-attribute', `${name}=Keyword`);
  if (opts.dbFilename) args.push('--db-filename', opts.dbFilename);
  if (opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  if (namespace !== 'default') args.push('--namespace', namespace);
  // Task-queue Fairness (src/core/priority.ts): dispatch shared between tenants' fairness keys.
  args.push('--dynamic-config-value', 'matching.enableFairness=true');
  args.push('--log-level', 'warn');

  const out = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(cli, args, { detached: true, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${cli}: ${(await spawnError).message}`);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    }),
  );
  const watchdog = spawnWatchdog(pid);
  const killOnExit = () => signalGroup(pid, 'SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      signalGroup(pid, 'SIGTERM');
      const deadline = Date.now() + STOP_GRACE_MS;
      while ((!exited || processGroupAlive(pid)) && Date.now() < deadline) {
        await Promise.race([exitPromise, sleep(100)]);
      }
      if (!exited || processGroupAlive(pid)) {
        signalGroup(pid, 'SIGKILL');
        await Promise.race([exitPromise, sleep(KILL_WAIT_MS)]);
      }
      process.removeListener('exit', killOnExit);
      if (watchdog.pid !== undefined) signalGroup(watchdog.pid, 'SIGKILL');
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    })());

  const address = `${host}:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (exited) {
      const logText = tail(logFile);
      await stop();
      throw new Error(
        `temporal dev server exited during start-up (code ${exited.code}, signal ${exited.signal})\n${logText}`,
      );
    }
    try {
      await checkReady(address, namespace, Math.max(500, Math.min(3000, deadline - Date.now())));
      return { address, uiUrl: `http://${host}:${uiPort}`, stop };
    } catch (err) {
      lastError = err;
      await Promise.race([exitPromise, sleep(200)]);
    }
  }
  const logText = tail(logFile);
  await stop();
  throw new Error(
    `temporal dev server on ${address} not ready after ${startTimeoutMs} ms: ${String(lastError)}\n${logText}`,
  );
}

async function checkReady(address: string, namespace: string, timeoutMs: number): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: timeoutMs });
  try {
    await connection.withDeadline(Date.now() + timeoutMs, async () => {
      await connection.workflowService.getSystemInfo({});
      await ensureSearchAttributes(connection, namespace);
    });
  } finally {
    await connection.close();
  }
}

async function startWithSdkDownload(
  opts: TemporalDevServerOptions,
  log: (line: string) => void,
): Promise<TemporalDevServer> {
  log(
    'temporal dev server: no CLI found (TEMPORAL_CLI_PATH, .tools/venv/bin/temporal, PATH); ' +
      'falling back to @temporalio/testing, which downloads the Temporal CLI (needs internet)',
  );
  // Loaded lazily: @temporalio/testing is a dev dependency.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const host = '127.0.0.1';
  const port = opts.port || (await getFreePort(host));
  const uiPort = opts.uiPort || (await getFreePort(host));
  const namespace = opts.namespace ?? 'default';
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: host,
      port,
      ui: true,
      uiPort,
      dbFilename: opts.dbFilename,
      namespace,
      searchAttributes: [SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID],
      log: { format: 'pretty', level: 'warn' },
    },
  });
  try {
    await ensureSearchAttributes(env.connection, namespace);
  } catch (err) {
    await env.teardown();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return { address: env.address, uiUrl: `http://${host}:${uiPort}`, stop: () => (stopping ??= env.teardown()) };
}
