// A PostgreSQL wire-protocol front for PGlite that serves several client connections safely.
//
// PGlite is ONE Postgres session. Several connections can share it only if each connection's
// work reaches the session as an unbroken unit: an extended-query sequence (Parse/Bind/Describe/
// Execute … Sync) keeps the unnamed statement and portal between its messages, a transaction
// block keeps its snapshot and its writes, a COPY keeps the copy state. @electric-sql/pglite-socket
// 0.2.17 (the newest release) interleaves connections per protocol *message* and keeps a
// connection together only while IsTransactionBlock() is true, so two concurrent Parse/Bind
// sequences clobber each other's unnamed statement (bind errors or another connection's rows;
// upstream electric-sql/pglite issue #1046, fix proposed in PR #977, unreleased), and one failed
// exec leaves its queue "processing" forever.
//
// Here a connection OWNS the session from its first message until PGlite answers ReadyForQuery
// 'I' (idle, no transaction) to a Sync or a simple Query, i.e. until the session is back in the
// state a new connection expects. Other connections' messages wait, in arrival order (FIFO over
// connections), so statements run one at a time and transactions are serialised: the semantics
// of a pool of one, for any number of clients. A connection that closes while it owns the session
// is cleaned up (CopyFail, Sync, ROLLBACK); one that owns it mid-transaction and stays silent
// while others wait longer than `ownerIdleTimeoutMs` is terminated like PostgreSQL's
// idle_in_transaction_session_timeout (SQLSTATE 25P03). Session-level state (SET, set_config(),
// named prepared statements, LISTEN, temporary tables, session advisory locks) lasts one turn: when
// the session passes to another connection after a turn that may have changed it, DISCARD ALL runs
// first, so no client's settings reach another (a psql `SET search_path` or pg_dump's set_config()
// cannot break the API's queries). Clients here (Prisma over adapter-pg, pg, psql) use unnamed
// statements. CancelRequest is not supported (the connection is closed). Real PostgreSQL has none
// of these limits; this is for the demo and tests.
import { createServer, type Server, type Socket } from 'node:net';
import { changesSessionState, COPY_FAIL, DISCARD_ALL, fatal, lastBackendMessage, ROLLBACK, SYNC } from './pg-wire-messages';

export { changesSessionState, lastBackendMessage } from './pg-wire-messages';

/** What running one frontend message on the PGlite session returns. */
export interface WireExecResult {
  /** The backend messages PGlite wrote, as bytes on the wire. */
  data: Uint8Array;
  /** PGlite's `isInTransaction()` after the message (an open or failed transaction block). */
  inTransaction: boolean;
}

/** The PGlite session: runs one complete frontend message (or a startup packet) at a time. */
export interface WireBackend {
  exec(message: Uint8Array): Promise<WireExecResult>;
}

/** Options of {@link startPgliteWireServer}. */
export interface PgliteWireServerOptions {
  backend: WireBackend;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Open connections accepted at once; more are answered FATAL 53300 "too many connections". */
  maxConnections: number;
  /**
   * Milliseconds a connection may own the session without sending anything (mid-transaction,
   * mid-COPY, an unfinished extended query) while other connections wait, before it is
   * terminated with FATAL 25P03 (default 30 000).
   */
  ownerIdleTimeoutMs?: number;
  /** Receives one line per refused or terminated connection and per backend failure. */
  log?: (message: string) => void;
}

/** A running server. */
export interface PgliteWireServer {
  host: string;
  port: number;
  /** Connections open now. */
  connections(): number;
  /** Stops listening, closes every client connection; resolves when the listener is closed. */
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const MAX_STARTUP_LENGTH = 10_000;
/** PostgreSQL's own limit for one message (PQ_LARGE_MESSAGE_LIMIT). */
const MAX_MESSAGE_LENGTH = 0x3fffffff;
const DEFAULT_OWNER_IDLE_TIMEOUT_MS = 30_000;

interface Message {
  /** The message type byte as a character, or 'startup' for the startup packet. */
  type: string;
  bytes: Uint8Array;
}

class Connection {
  buffer: Buffer = Buffer.alloc(0);
  /** Chunks received after `buffer`, joined only once the next message is complete. */
  readonly chunks: Buffer[] = [];
  /** Bytes in `buffer` and `chunks`. */
  size = 0;
  /** Bytes needed before framing can make progress (the next message's end, or its header). */
  need = 0;
  started = false;
  readonly pending: Message[] = [];
  queued = false;
  closed = false;
  lastActivity = Date.now();
  constructor(
    readonly id: number,
    readonly socket: Socket,
  ) {}
}

/**
 * Serves `backend` (one PGlite session) over the PostgreSQL wire protocol to up to
 * `maxConnections` clients at once, one connection owning the session per unit of work (see the
 * note at the top of this file).
 * @throws if the port cannot be bound.
 */
export async function startPgliteWireServer(opts: PgliteWireServerOptions): Promise<PgliteWireServer> {
  const log = opts.log ?? (() => undefined);
  const host = opts.host ?? '127.0.0.1';
  const ownerIdleTimeoutMs = opts.ownerIdleTimeoutMs ?? DEFAULT_OWNER_IDLE_TIMEOUT_MS;
  const open = new Set<Connection>();
  const waiting: Connection[] = [];
  let owner: Connection | undefined;
  let pumping = false;
  let closing = false;
  let ownerTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  /** The connection whose work ran last, and whether it may have left session state behind. */
  let lastOwner: Connection | undefined;
  let sessionDirty = false;

  const exec = async (message: Uint8Array): Promise<WireExecResult | undefined> => {
    try {
      return await opts.backend.exec(message);
    } catch (err) {
      log(`PGlite failed to run a message: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };

  /** Brings the session back to what a new connection expects after its owner went away. */
  const resetSession = async () => {
    await exec(COPY_FAIL); // ends a COPY FROM STDIN; ignored outside COPY
    const synced = await exec(SYNC); // ends an unfinished extended-query sequence
    if (synced?.inTransaction) await exec(ROLLBACK);
    lastOwner = undefined;
  };

  /** Before `c`'s turn: session state another connection left (settings, prepared statements, temp tables …) is discarded. */
  const handOver = async (c: Connection) => {
    if (c !== lastOwner && sessionDirty) {
      await exec(DISCARD_ALL);
      sessionDirty = false;
    }
    lastOwner = c;
  };

  const enqueue = (c: Connection) => {
    if (c !== owner && !c.queued && !c.closed && c.pending.length > 0) {
      c.queued = true;
      waiting.push(c);
    }
  };

  const terminate = (c: Connection, code: string, message: string) => {
    if (c.closed) return;
    log(`terminated connection #${c.id}: ${message}`);
    c.socket.end(fatal(code, message));
    setTimeout(() => c.socket.destroy(), 1000).unref();
    dropped(c);
  };

  const armOwnerTimer = () => {
    if (ownerTimer || !owner || waiting.length === 0) return;
    const due = owner.lastActivity + ownerIdleTimeoutMs - Date.now();
    ownerTimer = setTimeout(() => {
      ownerTimer = undefined;
      const o = owner;
      if (!o || o.pending.length > 0 || waiting.length === 0) return;
      if (Date.now() - o.lastActivity >= ownerIdleTimeoutMs) {
        terminate(o, '25P03', `terminating connection: it held the embedded database in an open transaction (or an unfinished query) without a message for ${ownerIdleTimeoutMs} ms while ${waiting.length} other connection(s) waited`);
      } else {
        armOwnerTimer();
      }
    }, Math.max(0, due));
    ownerTimer.unref();
  };

  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!closing) {
        let c = owner;
        if (c && c.closed) {
          // The owner went away in the middle of its work: undo what it left open.
          await resetSession();
          owner = undefined;
          continue;
        }
        if (c && c.pending.length === 0) {
          armOwnerTimer(); // wait for the owner's next message; everyone else waits too
          break;
        }
        if (!c) {
          c = waiting.shift();
          if (!c) break;
          c.queued = false;
          if (c.closed || c.pending.length === 0) continue;
          owner = c;
          await handOver(c);
        }
        const message = c.pending.shift()!;
        if (!sessionDirty && changesSessionState(message)) sessionDirty = true;
        const result = await exec(message.bytes);
        c.lastActivity = Date.now();
        if (!result) {
          terminate(c, 'XX000', 'the embedded database failed to run a message');
          continue; // the owner is closed now: the next round resets the session
        }
        if (!c.closed && result.data.length > 0) c.socket.write(result.data);
        const last = lastBackendMessage(result.data);
        const idle = (message.type === 'S' || message.type === 'Q' || message.type === 'startup') && last?.type === 'Z' && last.status === 'I' && !result.inTransaction;
        if (idle) {
          owner = undefined;
          if (ownerTimer) clearTimeout(ownerTimer);
          ownerTimer = undefined;
          enqueue(c); // more pipelined work goes to the back of the line
        }
      }
    } finally {
      pumping = false;
    }
  };

  const dropped = (c: Connection) => {
    if (c.closed) return;
    c.closed = true;
    c.pending.length = 0;
    open.delete(c);
    const i = waiting.indexOf(c);
    if (i >= 0) waiting.splice(i, 1);
    if (owner === c) void pump(); // resets the session (or the running pump does)
  };

  /** Splits the connection's bytes into complete messages; false when the connection was closed. */
  const frame = (c: Connection): boolean => {
    for (;;) {
      const buf = c.buffer;
      if (!c.started) {
        c.need = 8;
        if (buf.length < 8) return true;
        const length = buf.readInt32BE(0);
        if (length < 8 || length > MAX_STARTUP_LENGTH) {
          terminate(c, '08P01', 'invalid startup packet length');
          return false;
        }
        c.need = length;
        if (buf.length < length) return true;
        const code = buf.readInt32BE(4);
        const packet = new Uint8Array(buf.subarray(0, length));
        c.buffer = buf.subarray(length);
        c.size -= length;
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          c.socket.write('N'); // no TLS or GSS on the loopback server: the client goes on in plain text
          continue;
        }
        if (code === CANCEL_REQUEST) {
          c.socket.destroy(); // not supported: statements run to completion
          dropped(c);
          return false;
        }
        c.started = true;
        c.pending.push({ type: 'startup', bytes: packet });
        continue;
      }
      c.need = 5;
      if (buf.length < 5) return true;
      const length = buf.readInt32BE(1);
      if (length < 4 || length > MAX_MESSAGE_LENGTH) {
        terminate(c, '08P01', 'invalid message length');
        return false;
      }
      c.need = 1 + length;
      if (buf.length < 1 + length) return true;
      const type = String.fromCharCode(buf[0]!);
      const bytes = new Uint8Array(buf.subarray(0, 1 + length));
      c.buffer = buf.subarray(1 + length);
      c.size -= 1 + length;
      if (type === 'X') {
        c.socket.end(); // Terminate: nothing for the shared session to do
        dropped(c);
        return false;
      }
      c.pending.push({ type, bytes });
    }
  };

  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    if (closing) {
      socket.destroy();
      return;
    }
    const c = new Connection(nextId++, socket);
    if (open.size >= opts.maxConnections) {
      log(`refused a connection from port ${socket.remotePort}: ${open.size} connections open (the limit)`);
      socket.end(fatal('53300', `sorry, too many clients already (the embedded database accepts ${opts.maxConnections})`));
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    open.add(c);
    socket.on('data', (chunk: Buffer) => {
      if (c.closed) return;
      c.lastActivity = Date.now();
      c.chunks.push(chunk);
      c.size += chunk.length;
      if (c.size < c.need) return; // a large message still arriving: join its chunks once, at the end
      c.buffer = Buffer.concat([c.buffer, ...c.chunks.splice(0)]);
      if (!frame(c)) return;
      enqueue(c);
      void pump();
    });
    socket.on('error', () => dropped(c)); // ECONNRESET and the like: the client is gone
    socket.on('close', () => dropped(c));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log(`listener error: ${err.message}`));
  const { port } = server.address() as { port: number };

  return {
    host,
    port,
    connections: () => open.size,
    close: () => {
      closing = true;
      if (ownerTimer) clearTimeout(ownerTimer);
      for (const c of [...open]) {
        c.socket.destroy();
        dropped(c);
      }
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
