/**
 * A supervised child process of the cluster: its own process group (so a signal reaches its
 * children too), output appended to a log file, a shell watchdog that kills the group within about
 * a second when the supervisor dies in any way (SIGKILL included), and an exit that the supervisor
 * either expects (a stop or a fault it injected) or reports with the log's tail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';

/** How a child ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link startChild}. */
export interface ChildOptions {
  /** Name in messages, e.g. `temporal-1`. */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  /** uid/gid to run as (PostgreSQL refuses root). */
  uid?: number;
  gid?: number;
  /** Called once when the child exits without {@link Child.expectExit} (a crash). */
  onUnexpectedExit?: (exit: ChildExit, child: Child) => void;
}

/** A running (or exited) child. */
export interface Child {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves when the process has exited. */
  exited: Promise<ChildExit>;
  /** Set once it exited. */
  exit?: ChildExit;
  /** Marks the next exit as wanted (no unexpected-exit report). */
  expectExit(): void;
  /** Sends `signal` to the whole process group; a no-op once exited. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM to the group, SIGKILL after `graceMs` (default 15 000); resolves once exited. Idempotent. */
  stop(graceMs?: number): Promise<ChildExit>;
  /** The last `bytes` of its log. */
  tail(bytes?: number): string;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** The last `bytes` of `file` ('' when unreadable). */
export function fileTail(file: string, bytes = 4000): string {
  try {
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    try {
      const len = Math.min(bytes, size);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8').trim();
    } finally {
      closeSync(fd);
    }
  } catch {
    try {
      return readFileSync(file, 'utf8').slice(-bytes).trim();
    } catch {
      return '';
    }
  }
}

/**
 * Starts a child in its own process group with a watchdog.
 * @throws Error when the command cannot be spawned.
 */
export function startChild(opts: ChildOptions): Child {
  const out = openSync(opts.logFile, 'a');
  let proc: ChildProcess;
  try {
    proc = spawn(opts.command, opts.args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['ignore', out, out],
      ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
    });
  } finally {
    closeSync(out);
  }
  const pid = proc.pid;
  if (pid === undefined) throw new Error(`${opts.name}: could not start ${opts.command}`);
  // Kills the group when this supervisor is gone (checked every second), TERM then KILL.
  const dog = spawn(
    '/bin/sh',
    ['-c', 'while kill -0 "$0" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -TERM "-$1" 2>/dev/null; sleep 5; kill -KILL "-$1" 2>/dev/null', String(process.pid), String(pid)],
    { detached: true, stdio: 'ignore' },
  );
  dog.unref();
  let expected = false;
  let stopping: Promise<ChildExit> | undefined;
  const child: Child = {
    name: opts.name,
    pid,
    logFile: opts.logFile,
    exited: new Promise<ChildExit>((resolve) => {
      proc.once('exit', (code, signal) => {
        // The group may still hold grandchildren (e.g. PostgreSQL backends): end them too.
        signalGroup(pid, 'SIGKILL');
        child.exit = { code, signal };
        resolve(child.exit);
        if (!expected) opts.onUnexpectedExit?.(child.exit, child);
      });
    }),
    expectExit() {
      expected = true;
    },
    signal(signal) {
      if (!child.exit) signalGroup(pid, signal);
    },
    stop(graceMs = 15_000) {
      expected = true;
      stopping ??= (async () => {
        if (!child.exit) {
          signalGroup(pid, 'SIGTERM');
          const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
          await child.exited;
          clearTimeout(timer);
        }
        return child.exit!;
      })();
      return stopping;
    },
    tail: (bytes) => fileTail(opts.logFile, bytes),
  };
  proc.once('error', () => undefined); // reported through 'exit'
  return child;
}

/**
 * Guards a process this supervisor did not spawn detached (PostgreSQL's postmaster): a shell
 * watchdog sends it SIGQUIT (PostgreSQL's immediate shutdown) once the supervisor is gone. Returns
 * the function that disarms the watchdog.
 */
export function guardPid(pid: number): () => void {
  const dog = spawn(
    '/bin/sh',
    ['-c', 'while kill -0 "$0" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -QUIT "$1" 2>/dev/null', String(process.pid), String(pid)],
    { detached: true, stdio: 'ignore' },
  );
  dog.unref();
  return () => {
    try {
      dog.kill('SIGKILL');
    } catch {
      // gone
    }
  };
}

/** Whether a process with `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
