/**
 * The production topology on one machine, started and supervised from here: PostgreSQL for
 * Temporal and one for the projections, two Temporal server nodes (frontend, history, matching and
 * worker each) joined through the membership table, a TCP balancer in front of their frontends,
 * API processes behind a second balancer, and every worker process the manifests declare as its
 * own process ({@link workerServices}); the project's emulators (GitHub, portal) and moto stand in
 * for the outside services. Faults are injected through the returned {@link Cluster}; any process that
 * exits without being told to is reported through `onFailure` with its log tail.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { ensureSearchAttributes } from '../../src/core/search-attributes';
import { probeConnection } from '../../src/dev/temporal-server';
import { LOCAL_OBJECT_STORE_CREDENTIALS, startLocalObjectStore } from '../../src/dev/object-store-server';
import { migrateDeploy } from '../../src/db/migrate';
import { loadConfig } from '../../src/families';
import { createS3ObjectStore } from '../../src/storage/s3';
import { createEmptyDatabase, startPostgres } from '../../test/support/postgres';
import { startGithubEmulator } from '../../test/support/github-emulator';
import { startPortalEmulator } from '../../test/support/portal-emulator';
import { alive, guardPid, startChild, type Child, type ChildExit } from './child';
import { API_SERVICE, apiReady, frontendAnswers, startService, waitReady, workerPolls, workerServices, type BuildRef, type ServiceSpec } from './services';
import { ensureNamespace, lowFreePorts, nodePorts, setupTemporalSchemas, temporalNodeEnv, temporalTools } from './temporal';
import { buildServiceEnv, buildWorkersInto } from './env';

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Repository root (default: two folders up). */
  root?: string;
  /** API processes (default 2). */
  apis?: number;
  /** Worker processes per entry point (default 1). */
  workersPerQueue?: number;
  /** Extra environment of the API and worker processes (e.g. RECONCILE_INTERVAL_SECONDS). */
  env?: Record<string, string>;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Called once when a process exits unexpectedly (the error has its log tail). */
  onFailure?: (err: Error) => void;
}

/** One supervised process of the cluster. */
interface Proc {
  name: string;
  kind: 'temporal' | 'balancer' | 'api' | 'worker';
  child?: Child;
  spec?: ServiceSpec;
  build?: BuildRef;
  /** Address (`host:port`) or URL it serves. */
  endpoint?: string;
  /** Starts it again after a stop or a kill; `env` is added to its environment for this launch. */
  launch: (env?: Record<string, string>) => Promise<void>;
  removed?: boolean;
}

/** What a client of the cluster sees (JSON-serialisable; the control API answers it). */
export interface ClusterState {
  dataDir: string;
  namespace: string;
  /** The balancer in front of every frontend: what every client and worker connects to. */
  temporalAddress: string;
  /** The balancer in front of every API process. */
  apiUrl: string;
  databaseUrl: string;
  temporalDatabaseUrl: string;
  temporalPostgresUp: boolean;
  /** Postmaster pids of the two PostgreSQL servers (their backends are its children). */
  postgresPids: { temporal: number; projections: number };
  emulators: { github: string; portal: string; objectStore: string };
  /** The environment every API and worker process got (secrets included: a local cluster). */
  serviceEnv: Record<string, string>;
  processes: { name: string; kind: Proc['kind']; pid?: number; up: boolean; endpoint?: string; queues?: string[]; spec?: string; build?: string; log?: string }[];
}

/** A running cluster. */
export interface Cluster {
  state(): ClusterState;
  /** Signals process `name` (default SIGKILL) and waits for its exit; the exit is expected. */
  kill(name: string, signal?: NodeJS.Signals): Promise<ChildExit>;
  /**
   * Starts process `name` again (no-op when it runs) and waits until it is ready. `env` (API and
   * worker processes only) is added to the service environment for this start; a later start
   * without it runs with the cluster's environment again.
   */
  start(name: string, env?: Record<string, string>): Promise<void>;
  /** Starts one more process of worker entry `spec` (e.g. `worker-ai`); returns its name. */
  addWorker(spec: string, build?: BuildRef): Promise<string>;
  /** Stops worker `name` gracefully (SIGTERM) and forgets it. */
  removeWorker(name: string): Promise<void>;
  /** Fast shutdown of Temporal's PostgreSQL (data kept). */
  stopTemporalPostgres(): Promise<void>;
  /** Starts Temporal's PostgreSQL again on the same port and data. */
  startTemporalPostgres(): Promise<void>;
  /** Compiles the sources (tsc) into a new build directory. */
  build(): Promise<BuildRef>;
  /** Replaces every worker process, one at a time, by one running `build` (surge: the new one is ready before the old one stops). */
  rollingRestart(build: BuildRef): Promise<string[]>;
  /** Starts whatever is down (Temporal's PostgreSQL included) and waits until all is ready. */
  heal(): Promise<void>;
  /** Stops everything started, in reverse order; idempotent. */
  stop(): Promise<void>;
}

const READY_MS = 240_000;

/**
 * Starts the whole topology and resolves once every process is ready.
 * @throws StartError (with the log tail) when a process does not come up; everything already
 *   started is stopped first.
 */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const root = opts.root ?? path.resolve(__dirname, '..', '..');
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const tools = temporalTools(root);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cluster-'));
  const logs = path.join(dataDir, 'logs');
  mkdirSync(logs);
  const stops: (() => Promise<unknown>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const procs: Proc[] = [];
  const builds: string[] = [];
  let stopping: Promise<void> | undefined;
  let failed = false;
  const onUnexpectedExit = (exit: ChildExit, child: Child) => {
    if (stopping || failed) return;
    failed = true;
    const err = new Error(`${child.name} (pid ${child.pid}) exited unexpectedly (code ${exit.code}, signal ${exit.signal}); last lines of ${child.logFile}:\n${child.tail(3000)}`);
    opts.onFailure?.(err);
  };
  const stop = () =>
    (stopping ??= (async () => {
      const order: Proc['kind'][] = ['worker', 'api', 'balancer', 'temporal'];
      for (const kind of order) await Promise.allSettled(procs.filter((p) => p.kind === kind).map((p) => p.child?.stop()));
      for (const s of stops.reverse()) await s().catch((err: unknown) => log(`cluster: stopping: ${String(err)}`));
      for (const dir of builds) rmSync(dir, { recursive: true, force: true });
      const left = procs.map((p) => p.child).filter((c): c is Child => c !== undefined && alive(c.pid));
      if (left.length > 0) log(`cluster: still alive after stop: ${left.map((c) => `${c.name} ${c.pid}`).join(', ')}`);
    })());

  try {
    // 1. Outside services and the two PostgreSQL servers, side by side.
    const [temporalPg, appPg, moto, github, portal] = await Promise.all([startPostgres(), startPostgres(), startLocalObjectStore(), startGithubEmulator({ selfServiceTokens: true }), startPortalEmulator()]);
    stops.push(() => temporalPg.stop(), () => appPg.stop(), () => moto.stop(), () => github.close(), () => portal.close());
    const postgresPids = { temporal: await postmasterPid(temporalPg.adminUrl), projections: await postmasterPid(appPg.adminUrl) };
    let disarmPg = guardPid(postgresPids.temporal);
    const disarmAppPg = guardPid(postgresPids.projections);
    stops.push(async () => disarmPg(), async () => disarmAppPg());
    let temporalPgUp = true;
    const pgUrl = new URL(temporalPg.adminUrl);
    log(`cluster: PostgreSQL for Temporal ${temporalPg.adminUrl}, for the projections ${appPg.adminUrl}`);

    // 2. Temporal's schemas, the projections' migrations.
    const appDb = await createEmptyDatabase(appPg.adminUrl, 'durable_jobs');
    await Promise.all([setupTemporalSchemas(tools, { host: pgUrl.hostname, port: Number(pgUrl.port), user: 'postgres' }), migrateDeploy(appDb.url)]);
    log('cluster: Temporal schemas set up, projection migrations applied');

    // 3. Two Temporal nodes, one after the other (the second joins the first through membership).
    const dynamicConfigFile = path.join(root, 'deploy', 'temporal', 'dynamicconfig.yaml');
    const nodeAddresses: string[] = [];
    for (const n of [1, 2]) {
      const ports = await nodePorts();
      const env = temporalNodeEnv({ pg: { host: pgUrl.hostname, port: Number(pgUrl.port), user: 'postgres', password: 'postgres' }, ports, bindIp: '127.0.0.1', broadcastAddress: '127.0.0.1', dynamicConfigFile });
      const proc: Proc = {
        name: `temporal-${n}`,
        kind: 'temporal',
        endpoint: `127.0.0.1:${ports.frontend}`,
        launch: async () => {
          proc.child = startChild({ name: proc.name, command: tools.server, args: ['start'], env: { ...process.env, ...env }, cwd: dataDir, logFile: path.join(logs, `${proc.name}.log`), onUnexpectedExit });
          await waitReady(proc.child, 'answering gRPC', READY_MS, () => frontendAnswers(proc.endpoint!));
        },
      };
      procs.push(proc);
      await proc.launch();
      nodeAddresses.push(proc.endpoint!);
      log(`cluster: ${proc.name} ready, frontend ${proc.endpoint}`);
    }
    const balancer = async (name: string, backends: string[], fixedPort?: number): Promise<Proc> => {
      const port = fixedPort ?? (await lowFreePorts(1))[0];
      const proc: Proc = {
        name,
        kind: 'balancer',
        endpoint: `127.0.0.1:${port}`,
        launch: async () => {
          const args = ['--import', 'tsx', path.join(root, 'scripts', 'cluster', 'tcp-balancer.ts'), '--listen', proc.endpoint!, ...backends.flatMap((b) => ['--backend', b])];
          proc.child = startChild({ name, command: process.execPath, args, env: process.env, cwd: root, logFile: path.join(logs, `${name}.log`), onUnexpectedExit });
          await waitReady(proc.child, 'listening', 60_000, async () => /^listening /m.test(proc.child!.tail()));
        },
      };
      procs.push(proc);
      await proc.launch();
      return proc;
    };
    const temporalLb = await balancer('temporal-lb', nodeAddresses);
    const temporalAddress = temporalLb.endpoint!;
    const connection = await Connection.connect({ address: temporalAddress });
    stops.push(() => connection.close());

    // 4. The namespace and the search attributes (the server creates neither), seen by both nodes.
    const namespace = 'default';
    await ensureNamespace(connection, namespace);
    for (const address of nodeAddresses) {
      const c = await probeConnection(address, 10_000);
      try {
        // Each node caches namespaces and search attributes: retry until this one knows both.
        await waitFor(async () => (await c.workflowService.describeNamespace({ namespace }), await ensureSearchAttributes(c, namespace), true), 120_000, `namespace ${namespace} on ${address}`);
      } finally {
        await c.close();
      }
    }
    log(`cluster: namespace ${namespace} and search attributes ready on both nodes`);

    // 5. API and worker processes, behind their balancer, from the sources.
    const apiPorts = await lowFreePorts(opts.apis ?? 2);
    const apiLbPort = (await lowFreePorts(1))[0]!;
    const apiLbUrl = `http://127.0.0.1:${apiLbPort}`;
    const serviceEnv = buildServiceEnv({
      databaseUrl: appDb.url,
      temporalAddress,
      namespace,
      githubUrl: github.url,
      portalUrl: portal.url,
      callbackUrl: `${apiLbUrl}/internal/scrape-results`,
      objectStore: { endpoint: moto.endpoint, ...LOCAL_OBJECT_STORE_CREDENTIALS },
      extra: opts.env ?? {},
    });
    const bucket = createS3ObjectStore(loadConfig({ ...process.env, ...serviceEnv }).objectStore);
    await bucket.ensureBucket();
    bucket.close();
    const source: BuildRef = { kind: 'source' };
    const counts = new Map<string, number>();
    const serviceProc = (spec: ServiceSpec, build: BuildRef, port?: number): Proc => {
      const k = (counts.get(spec.name) ?? 0) + 1;
      counts.set(spec.name, k);
      const proc: Proc = {
        name: `${spec.name}-${k}`,
        kind: spec.role,
        spec,
        build,
        ...(port ? { endpoint: `http://127.0.0.1:${port}` } : {}),
        launch: async (extra) => {
          const env = { ...process.env, ...serviceEnv, ...extra, ...(port ? { API_PORT: String(port) } : {}) };
          proc.child = startService(root, proc.name, spec, proc.build!, env, path.join(logs, `${proc.name}.log`), onUnexpectedExit);
          const child = proc.child;
          if (spec.role === 'api') await waitReady(child, 'ready', READY_MS, () => apiReady(proc.endpoint!));
          else await waitReady(child, `polling ${spec.queues.join(', ')}`, READY_MS, () => workerPolls(connection, namespace, spec.queues, child.pid));
        },
      };
      procs.push(proc);
      return proc;
    };
    const services = [
      ...apiPorts.map((port) => serviceProc(API_SERVICE, source, port)),
      ...workerServices().flatMap((spec) => Array.from({ length: opts.workersPerQueue ?? 1 }, () => serviceProc(spec, source))),
    ];
    await Promise.all(services.map((p) => p.launch()));
    await balancer('api-lb', services.filter((p) => p.kind === 'api').map((p) => p.endpoint!.replace('http://', '')), apiLbPort);
    log(`cluster: ${services.length} service processes ready`);

    const find = (name: string): Proc => {
      const p = procs.find((x) => x.name === name && !x.removed);
      if (!p) throw new Error(`no process ${name}; there are ${procs.filter((x) => !x.removed).map((x) => x.name).join(', ')}`);
      return p;
    };
    const up = (p: Proc) => p.child !== undefined && p.child.exit === undefined;
    const cluster: Cluster = {
      state: () => ({
        dataDir,
        namespace,
        temporalAddress,
        apiUrl: apiLbUrl,
        databaseUrl: appDb.url,
        temporalDatabaseUrl: temporalPg.adminUrl,
        temporalPostgresUp: temporalPgUp,
        postgresPids: { ...postgresPids },
        emulators: { github: github.url, portal: portal.url, objectStore: moto.endpoint },
        serviceEnv,
        processes: procs.filter((p) => !p.removed).map((p) => ({
          name: p.name, kind: p.kind, ...(p.child ? { pid: p.child.pid, log: p.child.logFile } : {}), up: up(p),
          ...(p.endpoint ? { endpoint: p.endpoint } : {}), ...(p.spec ? { spec: p.spec.name, queues: p.spec.queues } : {}),
          ...(p.build ? { build: p.build.kind === 'source' ? 'source' : p.build.id } : {}),
        })),
      }),
      async kill(name, signal = 'SIGKILL') {
        const p = find(name);
        if (!p.child || p.child.exit) return p.child?.exit ?? { code: null, signal: null };
        p.child.expectExit();
        p.child.signal(signal);
        return p.child.exited;
      },
      async start(name, env) {
        const p = find(name);
        if (env && p.kind !== 'api' && p.kind !== 'worker') throw new TypeError(`${name} takes no environment: only API and worker processes do`);
        if (!up(p)) await p.launch(env);
      },
      async addWorker(specName, build = source) {
        const spec = workerServices().find((s) => s.name === specName);
        if (!spec) throw new Error(`no worker entry point ${specName}`);
        const p = serviceProc(spec, build);
        await p.launch();
        return p.name;
      },
      async removeWorker(name) {
        const p = find(name);
        if (p.kind !== 'worker') throw new Error(`${name} is not a worker`);
        await p.child?.stop();
        p.removed = true;
      },
      async stopTemporalPostgres() {
        disarmPg();
        temporalPgUp = false;
        await temporalPg.interrupt();
      },
      async startTemporalPostgres() {
        await temporalPg.resume();
        postgresPids.temporal = await postmasterPid(temporalPg.adminUrl);
        disarmPg = guardPid(postgresPids.temporal);
        temporalPgUp = true;
      },
      async build() {
        const ref = await buildWorkersInto(root);
        builds.push(ref.dir);
        return ref;
      },
      async rollingRestart(build) {
        const replaced: string[] = [];
        for (const old of procs.filter((p) => p.kind === 'worker' && !p.removed)) {
          const next = serviceProc(old.spec!, build);
          await next.launch();
          await old.child?.stop();
          old.removed = true;
          replaced.push(`${old.name} → ${next.name}`);
        }
        return replaced;
      },
      async heal() {
        if (!temporalPgUp) await cluster.startTemporalPostgres();
        for (const kind of ['temporal', 'balancer', 'api', 'worker'] as const) {
          await Promise.all(procs.filter((p) => p.kind === kind && !p.removed && !up(p)).map((p) => p.launch()));
        }
      },
      stop,
    };
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Polls `probe` (errors count as "not yet") every 500 ms up to `timeoutMs`. */
async function waitFor(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}: ${String(last)}`);
}

/** The postmaster's pid: the parent of this connection's backend. */
async function postmasterPid(url: string): Promise<number> {
  const c = new PgClient({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const stat = (await import('node:fs')).readFileSync(`/proc/${rows[0]!.pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } finally {
    await c.end();
  }
}
