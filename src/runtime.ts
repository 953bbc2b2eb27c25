/** Process-level resources shared by the API and worker entry points. */
import { readFileSync } from 'node:fs';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Config } from './config';
import { temporalDataConverter } from './crypto/payload-codec';
import { createPrisma } from './db/client';
import { clientInterceptors } from './telemetry/temporal';

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
 * Address, TLS and API key of the Temporal frontend from config (TEMPORAL_ADDRESS, TEMPORAL_TLS*,
 * TEMPORAL_API_KEY), for `Connection.connect` and `NativeConnection.connect` alike. Reads the PEM
 * files named by the config.
 * @throws Error naming the file when one cannot be read.
 */
export function temporalConnectionOptions(config: Config): { address: string; tls?: TLSConfig; apiKey?: string } {
  const { address, tls, apiKey } = config.temporal;
  const read = (file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`cannot read ${file}: ${(err as Error).message}`);
    }
  };
  return {
    address,
    ...(apiKey ? { apiKey } : {}),
    ...(tls.enabled
      ? {
          tls: {
            ...(tls.caFile ? { serverRootCACertificate: read(tls.caFile) } : {}),
            ...(tls.certFile && tls.keyFile ? { clientCertPair: { crt: read(tls.certFile), key: read(tls.keyFile) } } : {}),
            ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
          },
        }
      : {}),
  };
}

/**
 * Opens the process's one Temporal client (close it with `client.connection.close()`); its workflow
 * starts carry the caller's trace context (tracing interceptor, issue 7 §2) and its payloads are
 * encrypted (AR-6 payload codec, src/crypto/payload-codec.ts).
 */
export async function openTemporalClient(config: Config): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return new Client({
    connection,
    namespace: config.temporal.namespace,
    interceptors: clientInterceptors(),
    dataConverter: temporalDataConverter(config.temporal.payloadCodec),
  });
}
