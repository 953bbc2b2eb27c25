/**
 * A worker process's own `/metrics` endpoint: a tiny node:http server over the
 * process registry (src/core/metrics.ts) on METRICS_HOST:METRICS_PORT. The API serves the same
 * registry on its own port instead.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE, renderMetrics } from './metrics';

/** A listening metrics server. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (0 = a free port): `GET /metrics` answers the registry in Prometheus
 * text format 0.0.4; anything else 404, other methods 405. Rejects when the port is taken.
 */
export async function startMetricsServer(host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    renderMetrics().then(
      (body) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(req.method === 'HEAD' ? undefined : body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}/metrics`,
    port: actual,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
