/** The Prisma CLI for tests: `scripts/prisma.sh` (offline, WASM schema engine) as a child process. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../src/db/migrate';

/** How a CLI run ended: its exit code (null when killed) and stdout + stderr interleaved. */
export interface PrismaRun {
  code: number | null;
  output: string;
}

/**
 * Runs `scripts/prisma.sh <args>` from the repository root with `env` added to this process's
 * environment. Never rejects on a non-zero exit (callers assert `code`); the CLI is killed after
 * `timeoutMs` (default 120 s), which yields `code: null`.
 */
export function runPrisma(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<PrismaRun> {
  const root = repoRoot();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(root, 'scripts', 'prisma.sh'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}
