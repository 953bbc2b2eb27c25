/** Process-level resources shared by the API and worker entry points. */
import { readFileSync } from 'node:fs';
import { Client, Connection, type ConnectionLike, type TLSConfig, type WorkflowClientInterceptor } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { CoreConfig } from '../config';
import { temporalDataConverter, type PayloadCodecConfig } from '../crypto/payload-codec';
import { createPrisma } from '../db/client';
import { clientInterceptors } from '../telemetry/temporal';
import { fairnessInterceptor, type FairnessPolicy } from './priority';

/** Returns DATABASE_URL or fails fast; only `npm run demo` starts an embedded database. */
export function requireDatabaseUrl(config: Pick<CoreConfig, 'database'>): string {
  if (!config.database.url) {
    throw new Error('DATABASE_URL is required (npm run demo starts an embedded PostgreSQL for you)');
  }
  return config.database.url;
}

/** Opens the process's one Prisma client from config. */
export function openDatabase(config: Pick<CoreConfig, 'database'>): PrismaClient {
  return createPrisma(requireDatabaseUrl(config), { poolMax: config.database.poolMax });
}

/** Default of `temporal.callTimeoutMs` (TEMPORAL_CALL_TIMEOUT_MS). */
const CALL_TIMEOUT_MS = 60_000;

/**
 * Gives every workflow start, signal, cancel and describe through `connection` a deadline of
 * `timeoutMs` from the call (DC-1): a frontend that took the request and never answers ends in
 * DEADLINE_EXCEEDED instead of a hung request. Long polls (a run's result) are left alone.
 */
function callDeadlines(connection: ConnectionLike, timeoutMs: number): WorkflowClientInterceptor {
  const within = <T>(fn: () => Promise<T>) => connection.withDeadline(Date.now() + timeoutMs, fn);
  return {
    start: (input, next) => within(() => next(input)),
    startWithDetails: (input, next) => within(() => next(input)),
    signal: (input, next) => within(() => next(input)),
    signalWithStart: (input, next) => within(() => next(input)),
    cancel: (input, next) => within(() => next(input)),
    describe: (input, next) => within(() => next(input)),
  };
}

/**
 * The one way a Temporal client is built (AR-6): over `connection` (a `Connection`, or a worker's
 * `NativeConnection` for eager starts), in `temporal.namespace`, with the payload codec, the
 * tracing interceptor (workflow starts carry the caller's trace context), the fairness
 * interceptor (every start keyed by its tenant, src/core/priority.ts) and the call deadline of
 * `temporal.callTimeoutMs` (default 60 s). There is deliberately no way to leave the codec out.
 */
export function temporalClient(connection: ConnectionLike, temporal: { namespace: string; payloadCodec: PayloadCodecConfig; fairness: FairnessPolicy; callTimeoutMs?: number }): Client {
  return new Client({
    connection,
    namespace: temporal.namespace,
    interceptors: clientInterceptors([fairnessInterceptor(temporal.fairness), callDeadlines(connection, temporal.callTimeoutMs ?? CALL_TIMEOUT_MS)]),
    dataConverter: temporalDataConverter(temporal.payloadCodec),
  });
}

/**
 * Address, TLS and API key of the Temporal frontend from config (TEMPORAL_ADDRESS, TEMPORAL_TLS*,
 * TEMPORAL_API_KEY), for `Connection.connect` and `NativeConnection.connect` alike. Reads the PEM
 * files the config names.
 * @throws Error naming the file when one cannot be read.
 */
export function temporalConnectionOptions(config: Pick<CoreConfig, 'temporal'>): { address: string; tls?: TLSConfig; apiKey?: string } {
  const { address, tls, apiKey } = config.temporal;
  const read = (file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`cannot read ${file}: ${(err as Error).message}`);
    }
  };
  if (!tls.enabled) return { address, ...(apiKey ? { apiKey } : {}) };
  return {
    address,
    ...(apiKey ? { apiKey } : {}),
    tls: {
      ...(tls.caFile ? { serverRootCACertificate: read(tls.caFile) } : {}),
      ...(tls.certFile && tls.keyFile ? { clientCertPair: { crt: read(tls.certFile), key: read(tls.keyFile) } } : {}),
      ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
    },
  };
}

/** Connects to the frontend ({@link temporalConnectionOptions}) and opens the process's one client ({@link temporalClient}); close it with `client.connection.close()`. */
export async function openTemporalClient(config: Pick<CoreConfig, 'temporal'>): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return temporalClient(connection, config.temporal);
}
