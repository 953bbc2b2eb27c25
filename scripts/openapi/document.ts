/**
 * The server's OpenAPI document without any server: builds the API app (src/api/app.ts) with the
 * families' routes over a database URL that is never connected to (no prepared-statement probe, the bytea card search,
 * the polling change feed, the memory rate-limit store) and a lazy Temporal connection, and returns
 * `app.swagger()`. Used by `npm run client:generate` and the client drift test.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { buildApp } from '../../src/api/app';
import { taskQueues } from '../../src/core/contracts';
import { createPrisma } from '../../src/db/client';
import { createJobStarter, FAMILY_API, loadConfig } from '../../src/families';

/** Host and port nothing listens on: building the app must not connect to it. */
const UNUSED_DATABASE_URL = 'postgresql://openapi@127.0.0.1:9/openapi';

/**
 * The OpenAPI 3.1 document `/openapi.json` serves, as a plain object. `env` is added to the process
 * environment's settings the config reads (defaults otherwise); the database and Temporal settings
 * are replaced by unused ones.
 */
export async function openApiDocument(env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>> {
  const config = loadConfig({
    ...env,
    DATABASE_URL: UNUSED_DATABASE_URL,
    HOT_READS_PREPARED: 'false',
    JOB_CHANGE_FEED: 'poll',
    RATE_LIMIT_STORE: 'memory',
    VECTOR_SEARCH: 'bytea',
    // A key of its own: nothing is encrypted here, and the development key would warn.
    PAYLOAD_CODEC_KEYS: `openapi:${randomBytes(32).toString('base64')}`,
  });
  const db = createPrisma(UNUSED_DATABASE_URL, { poolMax: 1 });
  const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }), namespace: config.temporal.namespace });
  const starter = createJobStarter(client, taskQueues(config.temporal.taskQueuePrefix));
  const app = await buildApp({ ...FAMILY_API, config, db, starter, temporal: client, logger: pino({ level: 'silent' }) });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await db.$disconnect();
  }
}
