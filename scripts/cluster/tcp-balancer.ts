/**
 * A layer-4 (TCP) load balancer for the local cluster, run as its own process: the one address
 * that reaches any live Temporal frontend (gRPC over HTTP/2 is passed through untouched) or any
 * live API process. Each new connection goes to the next backend in turn; a backend that refuses
 * a connection is skipped for a second and the connection is tried on the others. When a backend
 * dies, its connections are closed, and the clients' reconnects land on a live one. Production
 * uses its platform's balancer instead (a cloud L4 balancer, a Kubernetes Service, DNS).
 *
 *   node --import tsx scripts/cluster/tcp-balancer.ts --listen 127.0.0.1:7233 --backend 127.0.0.1:7301 --backend …
 *
 * Prints `listening <host:port>` once bound; exits 2 on bad arguments, 1 when it cannot bind.
 */
import { connect, createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';

/** `host:port` → its parts. @throws Error when malformed. */
export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^([^\s:]+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 0 || port > 65535) throw new Error(`expected host:port, got ${JSON.stringify(value)}`);
  return { host: m[1]!, port };
}

const SKIP_MS = 1_000;
const CONNECT_TIMEOUT_MS = 3_000;

function main(): void {
  const { values } = parseArgs({ options: { listen: { type: 'string' }, backend: { type: 'string', multiple: true } } });
  let listen: { host: string; port: number };
  let backends: { host: string; port: number; downUntil: number }[];
  try {
    if (!values.listen || !values.backend?.length) throw new Error('usage: --listen host:port --backend host:port [--backend …]');
    listen = parseHostPort(values.listen);
    backends = values.backend.map((b) => ({ ...parseHostPort(b), downUntil: 0 }));
  } catch (err) {
    process.stderr.write(`tcp-balancer: ${(err as Error).message}\n`);
    process.exit(2);
  }
  let next = 0;

  /** Connects to a live backend, trying each at most once, starting with the next in turn. */
  const open = (client: Socket, tried = 0): void => {
    if (client.destroyed) return;
    if (tried >= backends.length) {
      client.destroy();
      return;
    }
    const now = Date.now();
    let pick = backends[next++ % backends.length]!;
    for (let i = 0; i < backends.length && pick.downUntil > now; i++) pick = backends[next++ % backends.length]!;
    const upstream = connect({ host: pick.host, port: pick.port });
    upstream.setNoDelay(true);
    let connected = false;
    const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    upstream.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on('error', () => {
      clearTimeout(timer);
      if (!connected) {
        pick.downUntil = Date.now() + SKIP_MS;
        upstream.destroy();
        open(client, tried + 1);
      }
    });
    upstream.once('close', () => {
      if (connected) client.destroy();
    });
    client.once('close', () => upstream.destroy());
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    client.setNoDelay(true);
    client.on('error', () => undefined);
    open(client); // data waits (paused) until the upstream is connected and piped
  });
  server.once('error', (err) => {
    process.stderr.write(`tcp-balancer: cannot listen on ${values.listen}: ${err.message}\n`);
    process.exit(1);
  });
  server.listen(listen.port, listen.host, () => {
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : listen.port;
    process.stdout.write(`listening ${listen.host}:${port} → ${backends.map((b) => `${b.host}:${b.port}`).join(', ')}\n`);
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(0));
}

if (require.main === module) main();
