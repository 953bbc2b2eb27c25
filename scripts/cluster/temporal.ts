/**
 * The Temporal server of the cluster: the binaries scripts/cluster/install.sh builds, the schema
 * set-up with Temporal's own SQL tool, and one node's environment for the server's embedded
 * configuration template (`temporal-server start` with no config file reads only environment
 * variables, exactly as the `temporalio/server` image does: docker-compose.yml sets the same
 * names, {@link TEMPORAL_NODE_SETTINGS}).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';

const run = promisify(execFile);

/** Temporal server release the cluster builds (scripts/cluster/install.sh pins the same). */
export const TEMPORAL_SERVER_VERSION = 'v1.32.2';

/** Where the installed tools are. */
export interface TemporalTools {
  server: string;
  sql: string;
  /** The server module in Go's module cache: schemas under `schema/postgresql/v12`. */
  moduleDir: string;
}

/**
 * The tools installed under `<root>/.tools/temporal-server`.
 * @throws Error naming the install command when they are missing.
 */
export function temporalTools(root: string): TemporalTools {
  const dir = path.join(root, '.tools', 'temporal-server');
  const server = path.join(dir, 'bin', 'server');
  const sql = path.join(dir, 'bin', 'sql');
  const moduleFile = path.join(dir, 'module-dir');
  if (!existsSync(server) || !existsSync(sql) || !existsSync(moduleFile)) {
    throw new Error(`the Temporal server is not installed in ${dir}: run \`bash scripts/cluster/install.sh\``);
  }
  return { server, sql, moduleDir: readFileSync(moduleFile, 'utf8').trim() };
}

/**
 * Settings every node shares, by the embedded template's variable names: the PostgreSQL plugin and
 * database names, 4 history shards (fixed for the life of a cluster: changing it needs a new
 * cluster), and bounded connection pools per service (a node runs four services).
 */
export const TEMPORAL_NODE_SETTINGS: Readonly<Record<string, string>> = {
  DB: 'postgres12',
  DBNAME: 'temporal',
  VISIBILITY_DBNAME: 'temporal_visibility',
  NUM_HISTORY_SHARDS: '4',
  SQL_MAX_CONNS: '10',
  SQL_MAX_IDLE_CONNS: '10',
  SQL_VIS_MAX_CONNS: '4',
  SQL_VIS_MAX_IDLE_CONNS: '4',
};

/** The nine ports of one node (all four services run in it). */
export interface TemporalNodePorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** Environment variables of one node's ports (the template's names). */
export const PORT_VARIABLES: Readonly<Record<keyof TemporalNodePorts, string>> = {
  frontend: 'FRONTEND_GRPC_PORT',
  frontendHttp: 'FRONTEND_HTTP_PORT',
  frontendMembership: 'FRONTEND_MEMBERSHIP_PORT',
  history: 'HISTORY_GRPC_PORT',
  historyMembership: 'HISTORY_MEMBERSHIP_PORT',
  matching: 'MATCHING_GRPC_PORT',
  matchingMembership: 'MATCHING_MEMBERSHIP_PORT',
  worker: 'WORKER_GRPC_PORT',
  workerMembership: 'WORKER_MEMBERSHIP_PORT',
};

/** Options of {@link temporalNodeEnv}. */
export interface TemporalNodeEnvOptions {
  pg: { host: string; port: number; user: string; password: string };
  ports: TemporalNodePorts;
  /** Interface the node binds and announces to the others. */
  bindIp: string;
  /** Absolute path of the dynamic config file (deploy/temporal/dynamicconfig.yaml). */
  dynamicConfigFile: string;
  logLevel?: string;
}

/** The complete environment of one node for `temporal-server start` (embedded config template). */
export function temporalNodeEnv(o: TemporalNodeEnvOptions): Record<string, string> {
  const env: Record<string, string> = {
    ...TEMPORAL_NODE_SETTINGS,
    POSTGRES_SEEDS: o.pg.host,
    DB_PORT: String(o.pg.port),
    POSTGRES_USER: o.pg.user,
    POSTGRES_PWD: o.pg.password,
    BIND_ON_IP: o.bindIp,
    TEMPORAL_BROADCAST_ADDRESS: o.bindIp,
    DYNAMIC_CONFIG_FILE_PATH: o.dynamicConfigFile,
    LOG_LEVEL: o.logLevel ?? 'warn',
    TEMPORAL_ALLOW_NO_AUTH: 'true',
  };
  for (const [k, v] of Object.entries(PORT_VARIABLES) as [keyof TemporalNodePorts, string][]) env[v] = String(o.ports[k]);
  return env;
}

function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer().once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/**
 * `n` distinct ports free on `host` a moment ago, all below 32768: Temporal stores membership
 * ports as a PostgreSQL smallint (a larger one makes the node exit at start-up), and the OS's
 * ephemeral range starts at 32768.
 */
export async function lowFreePorts(n: number, host = '127.0.0.1'): Promise<number[]> {
  const out = new Set<number>();
  for (let tries = 0; out.size < n; tries++) {
    if (tries > 5000) throw new Error(`could not find ${n} free ports below 32768 on ${host}`);
    const port = 20_000 + Math.floor(Math.random() * 12_700);
    if (!out.has(port) && (await portFree(port, host))) out.add(port);
  }
  return [...out];
}

/** Nine low free ports for one node. */
export async function nodePorts(host = '127.0.0.1'): Promise<TemporalNodePorts> {
  const p = await lowFreePorts(9, host);
  return {
    frontend: p[0]!, frontendHttp: p[1]!, frontendMembership: p[2]!, history: p[3]!, historyMembership: p[4]!,
    matching: p[5]!, matchingMembership: p[6]!, worker: p[7]!, workerMembership: p[8]!,
  };
}

/**
 * Creates Temporal's two databases and applies its schema with Temporal's SQL tool (idempotent: a
 * current schema is left as it is): `create-database`, `setup-schema -v 0.0`, `update-schema`.
 * @throws Error with the tool's output when a step fails.
 */
export async function setupTemporalSchemas(tools: TemporalTools, pg: { host: string; port: number; user: string }): Promise<void> {
  const schemaRoot = path.join(tools.moduleDir, 'schema', 'postgresql', 'v12');
  for (const [db, dir] of [[TEMPORAL_NODE_SETTINGS.DBNAME!, 'temporal'], [TEMPORAL_NODE_SETTINGS.VISIBILITY_DBNAME!, 'visibility']] as const) {
    const base = ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user, '--db', db];
    const steps: string[][] = [['create-database'], ['setup-schema', '-v', '0.0'], ['update-schema', '-d', path.join(schemaRoot, dir, 'versioned')]];
    for (const step of steps) {
      try {
        await run(tools.sql, [...base, ...step], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string; message: string };
        const text = `${e.stdout ?? ''}${e.stderr ?? ''}`;
        if (step[0] === 'create-database' && /already exists/.test(text)) continue;
        throw new Error(`temporal sql ${step.join(' ')} on ${db} failed: ${e.message}\n${text.slice(-3000)}`);
      }
    }
  }
}

const GRPC_ALREADY_EXISTS = 6;

/**
 * Registers `namespace` (retention `retentionHours`) through `connection` unless it exists. The
 * server creates no `default` namespace of its own.
 */
export async function ensureNamespace(connection: Connection, namespace: string, retentionHours = 72): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return;
  } catch (err) {
    if (!isGrpcServiceError(err) || err.code !== 5 /* NOT_FOUND */) throw err;
  }
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(`${retentionHours}h`) });
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS)) throw err;
  }
}
