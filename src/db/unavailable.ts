/**
 * Recognises "the database cannot be used right now" among the errors Prisma and the pg driver
 * adapter throw, so callers answer 503 / retry instead of treating an outage as a bug. Checked
 * against a real PostgreSQL 15 stopped under load (test/integration/db-outage.test.ts).
 */
import { Prisma } from '@prisma/client';

/** Why the database could not be used: `unreachable` (down, restarting, connection lost) or `busy` (pool or transaction wait). */
export type DatabaseUnavailability = 'unreachable' | 'busy';

/**
 * Prisma codes of an unusable database: P1001 can't reach server, P1002 server timed out, P1008
 * operation timed out, P1017 server closed the connection, P2037 too many connections (unreachable);
 * P2024 connection-pool timeout, P2028 transaction API error (busy: no connection in time, or the
 * transaction's connection was lost).
 */
const PRISMA_CODES: Record<string, DatabaseUnavailability> = {
  P1001: 'unreachable',
  P1002: 'unreachable',
  P1008: 'unreachable',
  P1017: 'unreachable',
  P2037: 'unreachable',
  P2024: 'busy',
  P2028: 'busy',
};

/** Driver-adapter error kinds (`@prisma/adapter-pg`) of a lost or refused connection. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * SQLSTATEs of an unusable server: class 08 (connection exception), 57P01 admin shutdown, 57P02
 * crash shutdown, 57P03 cannot connect now (starting up / shutting down), 53300 too many connections.
 */
const SQLSTATE = /^(?:08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** Node socket errors of a refused, reset or unroutable connection. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Messages of node-postgres (`pg`, `pg-pool`) when a connection dies or cannot be had. */
const PG_MESSAGES = /^(?:Connection terminated|Client has encountered a connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable)/;

/**
 * Classifies an error thrown by a Prisma call: 'unreachable' or 'busy' when the database could not
 * be used (see the tables above; PrismaClientInitializationError is always 'unreachable'), else
 * undefined. Follows `cause` and Prisma's `meta.driverAdapterError` chains (at most 8 links). Pure.
 */
export function databaseUnavailability(err: unknown): DatabaseUnavailability | undefined {
  let current: unknown = err;
  for (let hops = 0; hops < 8 && current !== null && typeof current === 'object'; hops++) {
    if (current instanceof Prisma.PrismaClientInitializationError) return 'unreachable';
    const e = current as { code?: unknown; kind?: unknown; message?: unknown; meta?: { driverAdapterError?: unknown }; cause?: unknown };
    if (current instanceof Prisma.PrismaClientKnownRequestError && typeof e.code === 'string' && PRISMA_CODES[e.code]) return PRISMA_CODES[e.code];
    if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return 'unreachable';
    // A server error: the adapter's `{ kind: 'postgres', code }`, or pg's own DatabaseError (has `severity`).
    const serverError = e.kind === 'postgres' || typeof (e as { severity?: unknown }).severity === 'string';
    if (serverError && typeof e.code === 'string' && SQLSTATE.test(e.code)) return 'unreachable';
    if (typeof e.code === 'string' && SOCKET_CODES.has(e.code)) return 'unreachable';
    if (typeof e.message === 'string' && PG_MESSAGES.test(e.message)) return 'unreachable';
    current = e.meta?.driverAdapterError ?? e.cause;
  }
  return undefined;
}
