/**
 * A worker entry point run as production runs it (its own process, against the real
 * Temporal dev server) serves its registry on METRICS_PORT and the Temporal SDK's own metrics on
 * TEMPORAL_METRICS_BIND, and shuts down cleanly on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import { pollUntil } from '../../support/poll';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** GETs `url` until it answers 200 with a body matching `ready` (the process may still be starting). */
async function scrapeUntil(url: string, ready: RegExp): Promise<{ contentType: string | null; body: string }> {
  const probe = async () => {
    try {
      const res = await fetch(url);
      return { ok: res.ok, contentType: res.headers.get('content-type'), body: await res.text() };
    } catch (err) {
      return { ok: false, contentType: null, body: String(err) }; // not listening yet
    }
  };
  return pollUntil(probe, (r) => r.ok && ready.test(r.body), { describe: `${url} to match ${ready}` });
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

it('the ai worker process serves its registry on METRICS_PORT and Temporal SDK metrics on TEMPORAL_METRICS_BIND', async () => {
  const [metricsPort, temporalPort] = [await freePort(), await freePort()];
  const env = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    DATABASE_URL: process.env.TEST_PG_ADMIN_URL ?? '', // never queried: no activity runs
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? '',
    TEMPORAL_TASK_QUEUE_PREFIX: `m${randomBytes(4).toString('hex')}-`,
    LOG_LEVEL: 'error',
    METRICS_PORT: String(metricsPort),
    TEMPORAL_METRICS_BIND: `127.0.0.1:${temporalPort}`,
  };
  child = spawn(process.execPath, ['--import', 'tsx', 'src/workers/main.ts', '--queue', 'ai'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });

  const own = await scrapeUntil(`http://127.0.0.1:${metricsPort}/metrics`, /process_cpu_user_seconds_total/);
  expect(own.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  for (const name of ['jobs_started_total', 'jobs_completed_total', 'jobs_failed_total', 'job_duration_seconds', 'projection_transitions_rejected_total', 'job_recovery_actions_total']) {
    expect(own.body).toContain(`# TYPE ${name} `);
  }
  expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);

  // Temporal Core's exporter: the worker's pollers and slots, Prometheus-named.
  // The process's connections report before its worker polls: wait for the worker's own series.
  const pollers = /^temporal_\w+\{[^}]*task_queue="m[0-9a-f]{8}-ai"/m;
  const sdk = await scrapeUntil(`http://127.0.0.1:${temporalPort}/metrics`, pollers);
  expect(sdk.body).toMatch(pollers);

  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
});
