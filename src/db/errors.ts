/**
 * Classification of database errors (Prisma over `@prisma/adapter-pg`, and raw `pg`/socket errors)
 * into what a job should do about them: a deterministic failure that no retry can fix, a
 * dependency outage to be waited out, or anything else. Pure: no I/O, no Temporal.
 *
 * Shapes seen from Prisma 6 + adapter-pg 7 (verified against PostgreSQL 15):
 * - `DriverAdapterError` with `cause = { kind, originalCode?: SQLSTATE, code?: SQLSTATE, … }`;
 * - `PrismaClientKnownRequestError` with a `P…` code and `meta.driverAdapterError.cause` as above
 *   (P2010 "raw query failed" carries the SQLSTATE only there);
 * - `PrismaClientUnknownRequestError` "JSON Error: unexpected end of hex escape" when a parameter
 *   holds a lone UTF-16 surrogate (the query cannot even be encoded);
 * - `pg` / `net` errors with `code` ECONNREFUSED, ECONNRESET … or "Connection terminated …".
 */

/** What to do about a database error. */
export type DbErrorClass =
  /** No retry can succeed (bad data, a constraint, a broken query): fail the job with the cause. */
  | 'deterministic'
  /** The database is unreachable, restarting or saturated: wait it out, do not charge the job. */
  | 'unavailable'
  /** Anything else (serialisation conflicts, unknown errors): an ordinary bounded retry. */
  | 'transient';

/**
 * What kind of database error it is; activities report every deterministic kind as the core's
 * PROJECTION_REJECTED and `unavailable` as DEPENDENCY_UNAVAILABLE (src/core/errors.ts).
 */
export const DB_ERROR_KINDS = {
  /** SQLSTATE class 22 (data exception), Prisma P2000/P2005-P2007/P2019/P2020/P2023, unencodable input. */
  dataException: 'data-exception',
  /** SQLSTATE class 23 (integrity constraint violation), Prisma P2002/P2003/P2004/P2011/P2014. */
  integrityViolation: 'integrity-violation',
  /** SQLSTATE class 42 (syntax error or access rule violation), Prisma P2009/P2012/P2013/P2021/P2022, invalid queries. */
  syntaxOrAccess: 'syntax-or-access-rule',
  /** Prisma P2025: the record an update or a required read needs does not exist. */
  recordNotFound: 'record-not-found',
  /** The database cannot be reached right now (refused, reset, shutting down, pool exhausted). */
  unavailable: 'unavailable',
} as const;
export type DbErrorKind = (typeof DB_ERROR_KINDS)[keyof typeof DB_ERROR_KINDS];

/** Result of {@link classifyDbError} for an error that comes from the database layer. */
export interface DbErrorInfo {
  class: DbErrorClass;
  /** The kind of error (absent for `transient`). */
  kind?: DbErrorKind;
  /** SQLSTATE when the server sent one. */
  sqlState?: string;
  /** Prisma error code (`P…`) when there is one. */
  prismaCode?: string;
  /** The most specific human-readable message (the server's, not Prisma's call-site dump). */
  message: string;
}

const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TlsConnectionError']);
const DETERMINISTIC_ADAPTER_KINDS: Record<string, DbErrorKind> = {
  LengthMismatch: DB_ERROR_KINDS.dataException,
  ValueOutOfRange: DB_ERROR_KINDS.dataException,
  InvalidInputValue: DB_ERROR_KINDS.dataException,
  InconsistentColumnData: DB_ERROR_KINDS.dataException,
  UniqueConstraintViolation: DB_ERROR_KINDS.integrityViolation,
  NullConstraintViolation: DB_ERROR_KINDS.integrityViolation,
  ForeignKeyConstraintViolation: DB_ERROR_KINDS.integrityViolation,
  RestrictViolation: DB_ERROR_KINDS.integrityViolation,
  TableDoesNotExist: DB_ERROR_KINDS.syntaxOrAccess,
  ColumnNotFound: DB_ERROR_KINDS.syntaxOrAccess,
};
/** Prisma codes that mean "the database is not there right now". */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1011', 'P1017', 'P2024']);
/** Prisma codes of deterministic request errors (input, constraints, schema). */
const DETERMINISTIC_PRISMA_CODES: Record<string, DbErrorKind> = {
  P2000: DB_ERROR_KINDS.dataException, // value too long for the column
  P2005: DB_ERROR_KINDS.dataException,
  P2006: DB_ERROR_KINDS.dataException,
  P2007: DB_ERROR_KINDS.dataException,
  P2019: DB_ERROR_KINDS.dataException,
  P2020: DB_ERROR_KINDS.dataException,
  P2023: DB_ERROR_KINDS.dataException,
  P2002: DB_ERROR_KINDS.integrityViolation,
  P2003: DB_ERROR_KINDS.integrityViolation,
  P2004: DB_ERROR_KINDS.integrityViolation,
  P2011: DB_ERROR_KINDS.integrityViolation,
  P2014: DB_ERROR_KINDS.integrityViolation,
  P2009: DB_ERROR_KINDS.syntaxOrAccess,
  P2012: DB_ERROR_KINDS.syntaxOrAccess,
  P2013: DB_ERROR_KINDS.syntaxOrAccess,
  P2021: DB_ERROR_KINDS.syntaxOrAccess,
  P2022: DB_ERROR_KINDS.syntaxOrAccess,
  P2025: DB_ERROR_KINDS.recordNotFound,
};
/** Messages of `pg`/`pg-pool` errors that carry no code but mean a lost or refused connection. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Connection ended unexpectedly|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)|Can't reach database server|server closed the connection unexpectedly/i;

/**
 * Classifies a SQLSTATE: classes 08 (connection), 53 (insufficient resources), 57P01-57P03
 * (shutdown, crash, cannot connect now) → unavailable; 22, 23, 42 → deterministic; else transient.
 */
export function classifySqlState(sqlState: string): Pick<DbErrorInfo, 'class' | 'kind'> {
  const cls = sqlState.slice(0, 2);
  if (cls === '08' || cls === '53' || ['57P01', '57P02', '57P03'].includes(sqlState)) {
    return { class: 'unavailable', kind: DB_ERROR_KINDS.unavailable };
  }
  if (cls === '22') return { class: 'deterministic', kind: DB_ERROR_KINDS.dataException };
  if (cls === '23') return { class: 'deterministic', kind: DB_ERROR_KINDS.integrityViolation };
  if (cls === '42') return { class: 'deterministic', kind: DB_ERROR_KINDS.syntaxOrAccess };
  return { class: 'transient' };
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' && v !== 'N/A' ? v : undefined);

/** The adapter's error description: `err.cause` of a DriverAdapterError, or Prisma's `meta`. */
function adapterCause(err: Rec): Rec | undefined {
  if (err.name === 'DriverAdapterError' && isRec(err.cause)) return err.cause;
  const meta = err.meta;
  if (isRec(meta) && isRec(meta.driverAdapterError) && isRec(meta.driverAdapterError.cause)) return meta.driverAdapterError.cause;
  return undefined;
}

/** The last line of Prisma's multi-line call-site message (the actual reason). */
function reason(message: string): string {
  const lines = message.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines[lines.length - 1] ?? message;
}

function fromAdapterCause(cause: Rec, prismaCode: string | undefined, fallback: string): DbErrorInfo {
  const sqlState = str(cause.originalCode) ?? (cause.kind === 'postgres' ? str(cause.code) : undefined);
  const message = str(cause.originalMessage) ?? str(cause.message) ?? fallback;
  const base = { message, ...(sqlState ? { sqlState } : {}), ...(prismaCode ? { prismaCode } : {}) };
  const kind = str(cause.kind);
  if (kind && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return { ...base, class: 'unavailable', kind: DB_ERROR_KINDS.unavailable };
  if (sqlState) return { ...base, ...classifySqlState(sqlState) };
  if (kind && DETERMINISTIC_ADAPTER_KINDS[kind]) return { ...base, class: 'deterministic', kind: DETERMINISTIC_ADAPTER_KINDS[kind] };
  return { ...base, class: 'transient' };
}

/**
 * Classifies an error thrown by Prisma or `pg` (also when wrapped as some error's `cause`, up to
 * 5 levels). Returns undefined for errors that do not come from the database layer, so callers can
 * leave those alone.
 */
export function classifyDbError(err: unknown): DbErrorInfo | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && isRec(cur); depth++, cur = cur.cause) {
    const info = classifyOne(cur);
    if (info) return info;
  }
  return undefined;
}

function classifyOne(err: Rec): DbErrorInfo | undefined {
  const name = str(err.name) ?? '';
  const message = str(err.message) ?? '';
  const code = str(err.code);
  if (name === 'DriverAdapterError' || name.startsWith('PrismaClient')) {
    const prismaCode = code && /^P\d{4}$/.test(code) ? code : undefined;
    const cause = adapterCause(err);
    if (prismaCode && UNAVAILABLE_PRISMA_CODES.has(prismaCode)) {
      return { class: 'unavailable', kind: DB_ERROR_KINDS.unavailable, prismaCode, message: cause ? fromAdapterCause(cause, prismaCode, reason(message)).message : reason(message) };
    }
    if (cause) {
      const info = fromAdapterCause(cause, prismaCode, reason(message));
      if (info.class !== 'transient' || !prismaCode || !DETERMINISTIC_PRISMA_CODES[prismaCode]) return info;
    }
    if (prismaCode && DETERMINISTIC_PRISMA_CODES[prismaCode]) {
      return { class: 'deterministic', kind: DETERMINISTIC_PRISMA_CODES[prismaCode], prismaCode, message: reason(message) };
    }
    if (name === 'PrismaClientValidationError') return { class: 'deterministic', kind: DB_ERROR_KINDS.syntaxOrAccess, message: reason(message) };
    if (name === 'PrismaClientInitializationError') return { class: 'unavailable', kind: DB_ERROR_KINDS.unavailable, message: reason(message) };
    // The engine could not encode the query's parameters (e.g. a lone UTF-16 surrogate in a string).
    if (name === 'PrismaClientUnknownRequestError' && /JSON Error:|hex escape|surrogate/i.test(message)) {
      return { class: 'deterministic', kind: DB_ERROR_KINDS.dataException, message: reason(message) };
    }
    if (UNAVAILABLE_MESSAGE.test(message)) return { class: 'unavailable', kind: DB_ERROR_KINDS.unavailable, message: reason(message) };
    const sqlState = /Code: `([0-9A-Z]{5})`/.exec(message)?.[1];
    if (sqlState) return { ...classifySqlState(sqlState), sqlState, ...(prismaCode ? { prismaCode } : {}), message: reason(message) };
    return { class: 'transient', ...(prismaCode ? { prismaCode } : {}), message: reason(message) };
  }
  // Raw pg errors (DatabaseError with a SQLSTATE) and socket errors.
  if (code && /^[0-9A-Z]{5}$/.test(code) && typeof err.severity === 'string') {
    return { ...classifySqlState(code), sqlState: code, message };
  }
  if (code && UNAVAILABLE_SOCKET_CODES.has(code)) return { class: 'unavailable', kind: DB_ERROR_KINDS.unavailable, message: message || code };
  if (UNAVAILABLE_MESSAGE.test(message)) return { class: 'unavailable', kind: DB_ERROR_KINDS.unavailable, message };
  return undefined;
}

/** True when `err` says the database cannot be reached right now (wait it out, SAN-4). */
export function isDbUnavailable(err: unknown): boolean {
  return classifyDbError(err)?.class === 'unavailable';
}
