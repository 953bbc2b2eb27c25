/**
 * Completion webhooks in `npm run demo`: a small HTTP receiver in the demo process, registered as
 * the demo user's endpoint before the parts run (the demo's service accepts loopback http:
 * WEBHOOK_ALLOW_PRIVATE_URLS, dev only) and, by a part, as a company's endpoint (a path of its own
 * per endpoint: each is verified with its own secret). After the parts: one summary line with the
 * deliveries per endpoint and event type, and per endpoint one delivered event verified with the
 * `standardwebhooks` reference implementation.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrismaClient } from '@prisma/client';
import { Webhook } from 'standardwebhooks';
import { ok, type ApiClient } from '../lib/api-client';
import type { DemoWebhookRegistry } from './part';

/** The service settings the demo's webhooks need (added to the demo's environment unless set). */
export const DEMO_WEBHOOK_ENV: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  // The embedded database delivers no NOTIFY across connections: the relay Schedule starts deliveries.
  WEBHOOK_RELAY_INTERVAL_SECONDS: '5',
};

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** One endpoint the receiver is registered as: its scope in words, its path on the receiver, its secret. */
interface DemoEndpoint {
  id: string;
  /** `user`, or `company <first 8 of its id>`. */
  label: string;
  path: string;
  secret: string;
}

/** Deliveries of one endpoint by event type and status, as `groupBy` counts them. */
export interface EndpointDeliveries {
  label: string;
  groups: readonly { eventType: string; status: string; count: number }[];
}

/**
 * The summary line `webhooks: <succeeded>/<total> deliveries to <url> succeeded (<n> POSTs
 * received): <label>: <type> <count>, …; <label>: …` (a status other than SUCCEEDED in parentheses
 * after its type; `none` for an endpoint without deliveries) and its totals. Pure.
 */
export function webhookSummary(url: string, endpoints: readonly EndpointDeliveries[], postsReceived: number): { line: string; total: number; succeeded: number } {
  const all = endpoints.flatMap((e) => e.groups);
  const total = all.reduce((n, g) => n + g.count, 0);
  const succeeded = all.filter((g) => g.status === 'SUCCEEDED').reduce((n, g) => n + g.count, 0);
  const per = endpoints
    .map((e) => `${e.label}: ${e.groups.map((g) => `${g.eventType}${g.status === 'SUCCEEDED' ? '' : ` (${g.status})`} ${g.count}`).join(', ') || 'none'}`)
    .join('; ');
  return { line: `webhooks: ${succeeded}/${total} deliveries to ${url} succeeded (${postsReceived} POSTs received): ${per}`, total, succeeded };
}

/** The receiver and its endpoints; `report` waits for the deliveries and says what arrived. */
export interface DemoWebhooks extends DemoWebhookRegistry {
  /** The URL of the demo user's endpoint (company endpoints are paths under it). */
  url: string;
  endpointId: string;
  /**
   * Lines on what arrived and whether every delivery succeeded, every endpoint got one and one
   * event per endpoint verified (`ok`), after at most `timeoutMs` of waiting for open deliveries.
   */
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
      received.push({ path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = '/demo-webhooks';
  const url = `${origin}${base}`;
  const stop = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const endpoints: DemoEndpoint[] = [];
  try {
    const e = await ok('POST /webhooks/endpoints', api.POST('/webhooks/endpoints', { body: { url, description: 'demo receiver' } }));
    endpoints.push({ id: e.id, label: 'user', path: base, secret: e.secret });
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    endpointId: endpoints[0]!.id,
    stop,
    async registerCompany(owner, companyId) {
      const path = `${base}/companies/${companyId}`;
      const e = await ok('POST /webhooks/endpoints', owner.POST('/webhooks/endpoints', { body: { url: `${origin}${path}`, companyId, description: 'demo receiver (company)' } }));
      endpoints.push({ id: e.id, label: `company ${companyId.slice(0, 8)}`, path, secret: e.secret });
      return e.id;
    },
    async report(db, timeoutMs = 90_000) {
      const ids = endpoints.map((e) => e.id);
      const deadline = Date.now() + timeoutMs;
      const open = () => db.webhookDelivery.count({ where: { endpointId: { in: ids }, status: { in: ['PENDING', 'DELIVERING'] } } });
      while ((await open()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      const byType = await db.webhookDelivery.groupBy({ by: ['endpointId', 'eventType', 'status'], where: { endpointId: { in: ids } }, _count: { _all: true }, orderBy: [{ eventType: 'asc' }, { status: 'asc' }] });
      const per = endpoints.map((e) => ({
        label: e.label,
        groups: byType.filter((g) => g.endpointId === e.id).map((g) => ({ eventType: g.eventType, status: g.status, count: g._count._all })),
      }));
      const summary = webhookSummary(endpoints.length > 1 ? `${url} and its /companies/… paths` : url, per, received.length);
      const lines = [summary.line];
      let verified = 0;
      for (const [i, e] of endpoints.entries()) {
        if (per[i]!.groups.length === 0) {
          lines.push(`webhooks: the ${e.label} endpoint ${e.id} got no delivery`);
          continue;
        }
        const first = received.find((r) => r.path === e.path);
        if (!first) {
          lines.push(`webhooks: no POST arrived at ${e.path} (the ${e.label} endpoint)`);
          continue;
        }
        try {
          const event = new Webhook(e.secret).verify(first.body, first.headers) as { type: string; data: { id: string; status: string } };
          verified += 1;
          lines.push(`webhooks: one delivered event of the ${e.label} endpoint: ${event.type} (webhook-id ${first.headers['webhook-id']}) for ${event.data.id}, status ${event.data.status}; signature verified with standardwebhooks`);
        } catch (err) {
          lines.push(`webhooks: the first delivered event of the ${e.label} endpoint does not verify: ${(err as Error).message}`);
        }
      }
      return { lines, ok: summary.total > 0 && summary.succeeded === summary.total && verified === endpoints.length };
    },
  };
}
