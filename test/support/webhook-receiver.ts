/**
 * A local webhook receiver for tests: each path answers by its behaviour (default 204, or a status
 * per request count, or 'hang' until stopped); `received` keeps every request as it arrived.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received { path: string; headers: http.IncomingHttpHeaders; body: string }

/** A receiver on 127.0.0.1 (port chosen by `start()`, which returns its base URL). */
export function webhookReceiver() {
  const received: Received[] = [];
  const behaviour = new Map<string, (count: number) => number | 'hang'>();
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString('utf8'); });
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body });
      const count = received.filter((r) => r.path === path).length;
      const answer = behaviour.get(path)?.(count) ?? 204;
      if (answer === 'hang') { hanging.push(res); return; }
      res.writeHead(answer).end();
    });
  });
  return {
    received, behaviour, server,
    async start() { await new Promise<void>((r) => server.listen(0, '127.0.0.1', r)); return `http://127.0.0.1:${(server.address() as AddressInfo).port}`; },
    async stop() { for (const h of hanging) h.destroy(); server.closeAllConnections(); await new Promise<void>((r) => server.close(() => r())); },
  };
}
