/**
 * The cluster's control API, for the cluster test suite and the benchmark: a loopback HTTP server
 * in the supervisor that answers the state and injects faults (kill, start, add workers, stop
 * Temporal's PostgreSQL, rolling restarts), guarded by a random bearer token; and its client.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Cluster, ClusterState } from './cluster';
import type { BuildRef } from './services';

/** Where the control API is and its token (written to the state file by `--state-file`). */
export interface ControlEndpoint {
  url: string;
  token: string;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  const v = JSON.parse(text) as unknown;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TypeError('body must be a JSON object');
  return v as Record<string, unknown>;
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v.length === 0) throw new TypeError(`${what} must be a non-empty string`);
  return v;
};

/** A `{ NAME: "value" }` object of environment variables, or a TypeError (400). */
const envObject = (v: unknown): Record<string, string> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TypeError('env must be an object of strings');
  for (const [k, x] of Object.entries(v)) if (!/^[A-Z_][A-Z0-9_]*$/.test(k) || typeof x !== 'string') throw new TypeError(`env: ${k} must be NAME: "string"`);
  return v as Record<string, string>;
};

/**
 * Serves `cluster` on 127.0.0.1 (a free port): `GET /state`; `POST /kill {name, signal?}`,
 * `/start {name, env?}` (env: extra environment of an API or worker process for this start), `/add-worker {spec, build?}`, `/remove-worker {name}`, `/temporal-postgres/stop`,
 * `/temporal-postgres/start`, `/build`, `/rolling-restart {build}`, `/heal`. A wrong token answers
 * 401, an unknown route 404; otherwise 200 with `{ ok: true, value }`, or `{ ok: false, status,
 * error }` (status 400 for bad input, 500 for a failed operation).
 */
export async function serveControl(cluster: Cluster, token: string): Promise<{ endpoint: ControlEndpoint; server: Server }> {
  const builds = new Map<string, BuildRef>();
  const routes: Record<string, (b: Record<string, unknown>) => Promise<unknown>> = {
    'GET /state': async () => cluster.state(),
    'POST /kill': async (b) => cluster.kill(str(b.name, 'name'), (b.signal as NodeJS.Signals | undefined) ?? 'SIGKILL'),
    'POST /start': async (b) => cluster.start(str(b.name, 'name'), b.env === undefined ? undefined : envObject(b.env)),
    'POST /add-worker': async (b) => ({ name: await cluster.addWorker(str(b.spec, 'spec'), b.build ? builds.get(str(b.build, 'build')) : undefined) }),
    'POST /remove-worker': async (b) => cluster.removeWorker(str(b.name, 'name')),
    'POST /temporal-postgres/stop': async () => cluster.stopTemporalPostgres(),
    'POST /temporal-postgres/start': async () => cluster.startTemporalPostgres(),
    'POST /build': async () => {
      const ref = await cluster.build();
      if (ref.kind === 'build') builds.set(ref.id, ref);
      return ref;
    },
    'POST /rolling-restart': async (b) => {
      const ref = builds.get(str(b.build, 'build'));
      if (!ref) throw new TypeError(`unknown build ${String(b.build)}`);
      return { replaced: await cluster.rollingRestart(ref) };
    },
    'POST /heal': async () => cluster.heal(),
  };
  const server = createServer((req, res) => {
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify(value ?? null));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'unauthorized' });
    const route = routes[`${req.method} ${req.url}`];
    if (!route) return send(404, { error: `no route ${req.method} ${req.url}` });
    // The answer's head goes out at once and a space every 20 s while the operation runs (a rolling
    // restart takes minutes on a loaded machine; HTTP clients time out silent responses); the
    // outcome is the body: `{ ok: true, value }` or `{ ok: false, status, error }`.
    res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
    const tick = setInterval(() => res.write(' '), 20_000);
    const finish = (outcome: object) => {
      clearInterval(tick);
      res.end(JSON.stringify(outcome));
    };
    body(req)
      .then(
        (b) => route(b).then((value) => finish({ ok: true, value: value ?? null }), (err: unknown) => finish({ ok: false, status: err instanceof TypeError ? 400 : 500, error: (err as Error).message })),
        (err: unknown) => finish({ ok: false, status: 400, error: `bad JSON: ${(err as Error).message}` }),
      )
      .catch(() => undefined);
  });
  server.requestTimeout = 0; // a rolling restart or a build takes minutes
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { endpoint: { url: `http://127.0.0.1:${port}`, token }, server };
}

/** Client of {@link serveControl}. */
export interface ControlClient {
  state(): Promise<ClusterState>;
  call<T = unknown>(path: string, body?: Record<string, unknown>): Promise<T>;
}

/** A client of the control API at `endpoint`; a non-2xx answer throws with its error text. */
export function controlClient(endpoint: ControlEndpoint): ControlClient {
  const call = async <T>(path: string, b?: Record<string, unknown>): Promise<T> => {
    const res = await fetch(`${endpoint.url}${path}`, {
      method: path === '/state' ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${endpoint.token}`, ...(b ? { 'content-type': 'application/json' } : {}) },
      ...(b ? { body: JSON.stringify(b) } : {}),
      signal: AbortSignal.timeout(900_000),
    });
    const json = (await res.json()) as { ok?: boolean; value?: T; status?: number; error?: string };
    if (!res.ok || !json.ok) throw new Error(`cluster control ${path} → ${json.status ?? res.status}: ${json.error ?? 'no detail'}`);
    return json.value as T;
  };
  return { state: () => call<ClusterState>('/state'), call };
}
