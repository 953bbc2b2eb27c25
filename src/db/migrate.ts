import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Raised when `prisma migrate deploy` exits non-zero; `output` holds its stdout and stderr. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}

let cachedRoot: string | undefined;

/** The repository root (the directory holding `scripts/prisma.sh`), found upwards from this file. */
export function repoRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'scripts', 'prisma.sh')) && existsSync(path.join(dir, 'package.json'))) {
      cachedRoot = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`scripts/prisma.sh not found above ${__dirname}`);
    dir = parent;
  }
}

/** Options of {@link migrateDeploy}. */
export interface MigrateDeployOptions {
  /** Kill the CLI after this many milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Another Prisma config file (`--config`), e.g. one pointing at another migrations folder. */
  config?: string;
  /** Extra environment variables for the CLI (DATABASE_URL is always `url`). */
  env?: Record<string, string>;
}

/**
 * Applies `prisma/migrations` (or the migrations of `opts.config`) to the database at `url` with
 * `scripts/prisma.sh migrate deploy` (Prisma's WASM schema engine, works offline), run from the
 * repository root.
 * @throws MigrationError with the CLI output when it exits non-zero or exceeds `timeoutMs` (default 120 s).
 */
export async function migrateDeploy(url: string, opts: MigrateDeployOptions = {}): Promise<void> {
  const root = repoRoot();
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const args = ['migrate', 'deploy', ...(opts.config ? ['--config', opts.config] : [])];
  await new Promise<void>((resolve, reject) => {
    const child = spawn('bash', [path.join(root, 'scripts', 'prisma.sh'), ...args], {
      cwd: root,
      env: { ...process.env, ...opts.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new MigrationError(`prisma migrate deploy could not start: ${err.message}`, ''));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      if (code === 0) return resolve();
      const why = timedOut ? `timed out after ${timeoutMs} ms` : `exited with ${code ?? signal}`;
      reject(new MigrationError(`prisma migrate deploy ${why}:\n${output}`, output));
    });
  });
}
