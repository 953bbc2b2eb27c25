/**
 * Local Temporal for development, tests and the demo: starts the Temporal CLI dev server (real
 * server, SQLite persistence, Web UI) with this service's search attributes (DC-4), and registers
 * those attributes on any server through the operator API.
 */
import { accessSync, constants as fsConstants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SA_JOB_TYPE, SA_TARGET_ID, SA_USER_ID, SEARCH_ATTRIBUTE_NAMES } from '../core/contracts';
import { ensureSearchAttributes } from '../core/search-attributes';
import { getFreePort, startChildServer } from './child-server';

export { ensureSearchAttributes } from '../core/search-attributes';
export { getFreePort } from './child-server';

/**
 * A client connection for readiness probes that close right after their call: without the SDK's
 * gRPC retry interceptor, whose retry timer would otherwise fire after `close()` and throw
 * "Channel has been shut down" out of a timer (an uncaught exception that ends the process). The
 * probe's own loop retries. `connectTimeoutMs` bounds the connect.
 */
export function probeConnection(address: string, connectTimeoutMs: number): Promise<Connection> {
  return Connection.connect({ address, connectTimeout: connectTimeoutMs, interceptors: [] });
}

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
  /** Further dynamic config values (`key` → JSON value), e.g. `matching.numTaskqueueReadPartitions: '1'`. */
  dynamicConfig?: Readonly<Record<string, string>>;
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

/**
 * Starts `temporal server start-dev` on 127.0.0.1 with the DC-4 search attributes and resolves once
 * the frontend answers and the attributes are visible in the namespace. Without a CLI binary it
 * falls back to `@temporalio/testing`'s downloaded dev server (needs internet) and logs that.
 * Its ports are verified to be its own and it starts again on others when one was taken
 * (src/dev/child-server.ts; fixed ports: one attempt).
 * @throws ChildServerError with the tail of the server log when it exits or start-up exceeds the bound.
 */
export async function startTemporalDevServer(opts: TemporalDevServerOptions = {}): Promise<TemporalDevServer> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cli = findTemporalCli();
  if (!cli) return startWithSdkDownload(opts, log);
  const host = '127.0.0.1';
  const namespace = opts.namespace ?? 'default';
  let tempDir: string | undefined;
  let logFile = opts.logFile;
  if (!logFile) {
    tempDir = mkdtempSync(path.join(tmpdir(), 'temporal-dev-'));
    logFile = path.join(tempDir, 'server.log');
  }
  const args = ([port, uiPort]: number[]) => {
    const list = ['server', 'start-dev', '--ip', host, '--port', String(port), '--ui-port', String(uiPort)];
    for (const name of SEARCH_ATTRIBUTE_NAMES) list.push('--search-attribute', `${name}=Keyword`);
    if (opts.dbFilename) list.push('--db-filename', opts.dbFilename);
    if (opts.uiCodecEndpoint) list.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
    if (namespace !== 'default') list.push('--namespace', namespace);
    // Task-queue Fairness (src/core/priority.ts): dispatch shared between tenants' fairness keys.
    list.push('--dynamic-config-value', 'matching.enableFairness=true');
    for (const [key, value] of Object.entries(opts.dynamicConfig ?? {})) list.push('--dynamic-config-value', `${key}=${value}`);
    list.push('--log-level', 'warn');
    return list;
  };
  const fixed = opts.port || opts.uiPort;
  try {
    const child = await startChildServer({
      name: 'temporal dev server',
      command: cli,
      args,
      host,
      // A fixed port keeps its partner fixed too (a free one picked now).
      ports: fixed ? [opts.port || (await getFreePort(host)), opts.uiPort || (await getFreePort(host))] : undefined,
      portCount: 2,
      logFile,
      startTimeoutMs: opts.startTimeoutMs ?? 60_000,
      stopGraceMs: STOP_GRACE_MS,
      log,
      ready: async ([port]) => {
        await checkReady(`${host}:${port}`, namespace, 3_000);
        return true;
      },
    });
    const [port, uiPort] = child.ports;
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        await child.stop();
        if (tempDir) rmSync(tempDir, { recursive: true, force: true });
      })());
    return { address: `${host}:${port}`, uiUrl: `http://${host}:${uiPort}`, stop };
  } catch (err) {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw err;
  }
}

async function checkReady(address: string, namespace: string, timeoutMs: number): Promise<void> {
  const connection = await probeConnection(address, timeoutMs);
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
