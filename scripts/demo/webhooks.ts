/**
 * Completion webhooks in `npm run demo`: a small HTTP receiver in the demo process, registered as
 * the demo user's endpoint before the parts run (the demo's service accepts loopback http:
 * WEBHOOK_ALLOW_PRIVATE_URLS, dev only), and after them one delivered event, verified with the
 * `standardwebhooks` reference implementation, and the count of deliveries per event type.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrismaClient } from '@prisma/client';
import { Webhook } from 'standardwebhooks';
import { ok, type ApiClient } from '../lib/api-client';

/** The service settings the demo's webhooks need (added to the demo's environment unless set). */
export const DEMO_WEBHOOK_ENV: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  // The embedded database delivers no NOTIFY across connections: the relay Schedule starts deliveries.
  WEBHOOK_RELAY_INTERVAL_SECONDS: '5',
};

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** The receiver and its endpoint; `report` waits for the deliveries and says what arrived. */
export interface DemoWebhooks {
  url: string;
  endpointId: string;
  /** Lines on what arrived and whether every delivery succeeded (`ok`), after at most `timeoutMs` of waiting. */
  report(db: PrismaClient, timeoutMs?: number): Promise<{ lines: string[]; ok: boolean }>;
  stop(): Promise<void>;
}

/** Starts the receiver on 127.0.0.1 and registers it for the user of `api`. */
export async function startDemoWebhooks(api: ApiClient): Promise<DemoWebhooks> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/demo-webhooks`;
  const stop = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  let endpoint: { id: string; secret: string };
  try {
    endpoint = await ok('POST /webhooks/endpoints', api.POST('/webhooks/endpoints', { body: { url, description: 'demo receiver' } }));
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    endpointId: endpoint.id,
    stop,
    async report(db, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      const open = () => db.webhookDelivery.count({ where: { endpointId: endpoint.id, status: { in: ['PENDING', 'DELIVERING'] } } });
      while ((await open()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      const byType = await db.webhookDelivery.groupBy({ by: ['eventType', 'status'], where: { endpointId: endpoint.id }, _count: { _all: true }, orderBy: { eventType: 'asc' } });
      const total = byType.reduce((n, g) => n + g._count._all, 0);
      const succeeded = byType.filter((g) => g.status === 'SUCCEEDED').reduce((n, g) => n + g._count._all, 0);
      const counts = byType.map((g) => `${g.eventType}${g.status === 'SUCCEEDED' ? '' : ` (${g.status})`} ${g._count._all}`).join(', ');
      const lines = [`webhooks: ${succeeded}/${total} deliveries to ${url} succeeded (${received.length} POSTs received): ${counts || 'none'}`];
      const first = received[0];
      let verified = false;
      if (first) {
        try {
          const event = new Webhook(endpoint.secret).verify(first.body, first.headers) as { type: string; data: { id: string; status: string } };
          verified = true;
          lines.push(`webhooks: one delivered event: ${event.type} (webhook-id ${first.headers['webhook-id']}) for ${event.data.id}, status ${event.data.status}; signature verified with standardwebhooks`);
        } catch (err) {
          lines.push(`webhooks: the first delivered event does not verify: ${(err as Error).message}`);
        }
      }
      return { lines, ok: total > 0 && succeeded === total && verified };
    },
  };
}
