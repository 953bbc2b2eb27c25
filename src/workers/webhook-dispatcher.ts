/**
 * The fast path of completion webhooks: in the process that serves the `maintenance` queue, one
 * connection LISTENs on `webhook_deliveries` (the outbox trigger's notification, delivered at the
 * commit of the terminal write) and runs a relay pass ({@link relayDeliveries}) at once, passes
 * coalesced (a wake during a pass runs one more). The `relay-webhook-deliveries` Schedule stays the
 * backstop: a notification lost while the connection was down, or a database that does not deliver
 * them across connections (the embedded PGlite), only waits for its next run. A lost connection is
 * reopened with a backoff (1 s doubling up to 30 s), followed by one pass.
 */
import { Client as PgClient } from 'pg';
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Logger } from 'pino';
import type { CoreConfig } from '../config';
import { relayDeliveries } from '../core/webhook-start';

/** Deps of {@link startWebhookDispatcher}. */
export interface WebhookDispatcherDeps {
  databaseUrl: string;
  db: PrismaClient;
  client: Client;
  config: Pick<CoreConfig, 'webhooks'>;
  /** The `jobs` task queue (delivery workflows run there). */
  jobsTaskQueue: string;
  log: Pick<Logger, 'info' | 'warn'>;
}

/** A running dispatcher; `stop()` closes its connection. */
export interface WebhookDispatcher {
  stop(): Promise<void>;
}

/** Starts the dispatcher (see the module comment); never throws for a database that is down. */
export function startWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const passLog = {
    info: (message: string, meta?: Record<string, unknown>) => deps.log.info(meta ?? {}, message),
    warn: (message: string, meta?: Record<string, unknown>) => deps.log.warn(meta ?? {}, message),
  };
  let stopped = false;
  let running = false;
  let again = false;
  let conn: PgClient | undefined;
  let backoffMs = 1000;
  let timer: NodeJS.Timeout | undefined;

  const pass = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await relayDeliveries(deps.db, deps.client, deps.config, deps.jobsTaskQueue, 500, passLog).catch((err: unknown) => {
          deps.log.warn({ err }, 'webhook relay pass failed; the relay Schedule takes the deliveries');
        });
      } while (again && !stopped);
    } finally {
      running = false;
    }
  };

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = new PgClient({ connectionString: deps.databaseUrl, application_name: 'durable-jobs webhook-dispatcher', keepAlive: true });
    c.on('error', () => undefined);
    c.on('end', () => {
      if (conn === c) retry();
    });
    c.on('notification', () => void pass());
    try {
      await c.connect();
      await c.query('LISTEN webhook_deliveries');
      conn = c;
      backoffMs = 1000;
      void pass();
    } catch (err) {
      deps.log.warn({ err }, 'webhook dispatcher could not listen; retrying');
      await c.end().catch(() => undefined);
      retry();
    }
  };

  const retry = () => {
    conn = undefined;
    if (stopped) return;
    timer = setTimeout(() => void connect(), backoffMs);
    backoffMs = Math.min(backoffMs * 2, 30_000);
  };

  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      const c = conn;
      conn = undefined;
      await c?.end().catch(() => undefined);
      while (running) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
