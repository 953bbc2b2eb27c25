/** Process-level resources shared by the API and worker entry points. */
import { Client, Connection } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../config';
import { temporalDataConverter } from '../crypto/payload-codec';
import { createPrisma } from '../db/client';
import { clientInterceptors } from '../telemetry/temporal';

/** Returns DATABASE_URL or fails fast; only `npm run demo` starts an embedded database. */
export function requireDatabaseUrl(config: Config): string {
  if (!config.database.url) {
    throw new Error('DATABASE_URL is required (npm run demo starts an embedded PostgreSQL for you)');
  }
  return config.database.url;
}

/** Opens the process's one Prisma client from config. */
export function openDatabase(config: Config): PrismaClient {
  return createPrisma(requireDatabaseUrl(config), { poolMax: config.database.poolMax });
}

/**
 * Opens the process's one Temporal client (close it with `client.connection.close()`); its workflow
 * starts carry the caller's trace context (tracing interceptor, issue 7 §2) and its payloads are
 * encrypted (AR-6 payload codec, src/crypto/payload-codec.ts).
 */
export async function openTemporalClient(config: Config): Promise<Client> {
  const connection = await Connection.connect({ address: config.temporal.address });
  return new Client({
    connection,
    namespace: config.temporal.namespace,
    interceptors: clientInterceptors(),
    dataConverter: temporalDataConverter(config.temporal.payloadCodec),
  });
}
