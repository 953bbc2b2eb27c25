/**
 * A TCP proxy in front of the test Temporal frontend that injects real network faults into the
 * gRPC (HTTP/2) traffic of the clients connected through it:
 * - `forward()`: bytes flow both ways (a connection that was swallowing is closed first: its HTTP/2
 *   state is broken, the client reconnects);
 * - `refuse()`: every connection is closed and new ones are closed on accept (gRPC UNAVAILABLE);
 * - `swallow({ reachServer, untilCancel })`: the server's answers are dropped, so a call ends at the
 *   client's deadline; with `reachServer` the client's requests still reach the server (it acts on
 *   them), without it they are dropped too. With `untilCancel` the proxy closes a connection as soon
 *   as the client cancels a call on it (an HTTP/2 RST_STREAM frame: its deadline fired) and forwards
 *   again, so the client's next call (a describe) gets through on a fresh connection.
 * `callsForwarded` counts the calls (HTTP/2 HEADERS frames) that reached the server.
 * {@link startFaultyApi} puts a proxy in front of a test stack's Temporal server and builds a
 * client and an API app on it.
 */
import net from 'node:net';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/api/app';
import { temporalClient } from '../../src/core/connections';
import { createJobStarter, FAMILY_API } from '../../src/families';
import type { Stack } from './stack';

/** What a swallowing proxy does; see the module comment. */
export interface SwallowOptions {
  reachServer: boolean;
  untilCancel: boolean;
}

type Mode = { kind: 'forward' } | { kind: 'refuse' } | ({ kind: 'swallow' } & SwallowOptions);

/** A running proxy; `address` is `127.0.0.1:<port>`. */
export interface GrpcFaultProxy {
  address: string;
  forward(): void;
  refuse(): void;
  swallow(opts: SwallowOptions): void;
  /** Calls (HEADERS frames) forwarded to the server so far. */
  readonly callsForwarded: number;
  /** Swallows that the client's cancel (its deadline) ended so far (`untilCancel`). */
  readonly cancels: number;
  close(): Promise<void>;
}

const PREFACE_BYTES = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
const FRAME_HEADER_BYTES = 9;
const FRAME_HEADERS = 0x1;
const FRAME_RST_STREAM = 0x3;

/** Reads the client's HTTP/2 frame types out of its byte stream (frames may span chunks). */
class FrameReader {
  private prefaceLeft = PREFACE_BYTES;
  private pending = Buffer.alloc(0);

  /** The types of the frames completed by `chunk`. */
  read(chunk: Buffer): number[] {
    let data = chunk;
    if (this.prefaceLeft > 0) {
      const skip = Math.min(this.prefaceLeft, data.length);
      this.prefaceLeft -= skip;
      data = data.subarray(skip);
    }
    this.pending = Buffer.concat([this.pending, data]);
    const types: number[] = [];
    while (this.pending.length >= FRAME_HEADER_BYTES) {
      const length = this.pending.readUIntBE(0, 3);
      if (this.pending.length < FRAME_HEADER_BYTES + length) break;
      types.push(this.pending[3]!);
      this.pending = this.pending.subarray(FRAME_HEADER_BYTES + length);
    }
    return types;
  }
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
  /** Whether it has dropped bytes (its HTTP/2 state is broken: close it before forwarding again). */
  broken: boolean;
}

/** Starts a proxy to `target` (`host:port`) in `forward` mode. */
export async function startGrpcFaultProxy(target: string): Promise<GrpcFaultProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let mode: Mode = { kind: 'forward' };
  let callsForwarded = 0;
  let cancels = 0;
  const pairs = new Set<Pair>();

  const drop = (p: Pair) => {
    pairs.delete(p);
    p.client.destroy();
    p.server.destroy();
  };
  const dropAll = (which: (p: Pair) => boolean) => {
    for (const p of [...pairs]) if (which(p)) drop(p);
  };

  const server = net.createServer((client) => {
    if (mode.kind === 'refuse') {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host, port });
    const pair: Pair = { client, server: upstream, broken: false };
    pairs.add(pair);
    const frames = new FrameReader();
    const pendingToServer: Buffer[] = [];
    upstream.on('connect', () => {
      for (const b of pendingToServer.splice(0)) upstream.write(b);
    });
    client.on('data', (chunk: Buffer) => {
      const types = frames.read(chunk);
      const m = mode;
      if (m.kind === 'swallow' && m.untilCancel && pair.broken && types.includes(FRAME_RST_STREAM)) {
        drop(pair);
        mode = { kind: 'forward' };
        cancels++;
        return;
      }
      if (m.kind === 'swallow' && !m.reachServer) {
        pair.broken = true;
        return;
      }
      callsForwarded += types.filter((t) => t === FRAME_HEADERS).length;
      if (upstream.connecting) pendingToServer.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (mode.kind === 'swallow') {
        pair.broken = true;
        return;
      }
      client.write(chunk);
    });
    const end = () => drop(pair);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port: own } = server.address() as net.AddressInfo;

  return {
    address: `127.0.0.1:${own}`,
    forward() {
      mode = { kind: 'forward' };
      dropAll((p) => p.broken);
    },
    refuse() {
      mode = { kind: 'refuse' };
      dropAll(() => true);
    },
    swallow(opts) {
      mode = { kind: 'swallow', ...opts };
    },
    get callsForwarded() {
      return callsForwarded;
    },
    get cancels() {
      return cancels;
    },
    async close() {
      dropAll(() => true);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A fault proxy in front of a stack's Temporal server, with a client and an API app that reach Temporal only through it. */
export interface FaultyApi {
  proxy: GrpcFaultProxy;
  /** The project's Temporal client (src/core/connections.ts) over the proxy. */
  client: Client;
  /** The API app (ready) whose job starter and Temporal calls use {@link client}. */
  app: FastifyInstance;
  /** Closes the app, the connection and the proxy (the stack stays up). */
  close(): Promise<void>;
}

/** Options of {@link startFaultyApi}. */
export interface FaultyApiOptions {
  /** Per-call deadline of the client in ms (default: the stack's config). */
  callTimeoutMs?: number;
  /**
   * Attempts of each gRPC call the connection makes (the SDK's retry policy otherwise, default 10:
   * a refused call then ends after about 20 s of backoff).
   */
  grpcAttempts?: number;
}

/**
 * Starts a {@link GrpcFaultProxy} in front of `stack`'s Temporal frontend and builds the project's
 * Temporal client ({@link FaultyApiOptions}) and an API app on it, sharing the stack's config,
 * database and queues. The proxy starts forwarding.
 */
export async function startFaultyApi(stack: Stack, opts: FaultyApiOptions = {}): Promise<FaultyApi> {
  const proxy = await startGrpcFaultProxy(stack.config.temporal.address);
  let connection: Connection | undefined;
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    await connection?.close();
    await proxy.close();
  };
  try {
    connection = await Connection.connect({ address: proxy.address, ...grpcRetries(opts.grpcAttempts) });
    const temporal = opts.callTimeoutMs === undefined ? stack.config.temporal : { ...stack.config.temporal, callTimeoutMs: opts.callTimeoutMs };
    const client = temporalClient(connection, temporal);
    app = await buildApp({ ...FAMILY_API, config: stack.config, db: stack.db, starter: createJobStarter(client, stack.queues), temporal: client, logger: pino({ level: 'silent' }) });
    await app.ready();
    return { proxy, client, app, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

/**
 * Connection options that make each gRPC call at most `attempts` times with the SDK's backoff
 * (nothing when `attempts` is undefined: the SDK's own policy).
 */
export function grpcRetries(attempts: number | undefined): { interceptors?: ReturnType<typeof makeGrpcRetryInterceptor>[] } {
  return attempts === undefined ? {} : { interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: attempts }))] };
}
