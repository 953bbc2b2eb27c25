/**
 * The process's Prometheus registry (one per process: the API serves it on `/metrics`, a worker
 * process on METRICS_PORT, the demo shares it among API and workers, so no metric is registered
 * twice), the HTTP latency histogram and prom-client's process metrics. Label values are bounded:
 * route patterns (never raw URLs) and status codes. Others register with `registers: [metricsRegistry]`.
 */
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The registry every metric of this process is registered in. */
export const metricsRegistry = new Registry();

/** Content type of {@link renderMetrics}: Prometheus text format 0.0.4. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Bucket bounds of the HTTP latency histogram, in seconds. */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests served by the API, by method, route pattern and status code (latency in seconds; _count = requests)',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: HTTP_BUCKETS,
  registers: [metricsRegistry],
});

/** Observes one served HTTP request: `route` is the route pattern (e.g. `/cards/:scrapId`). */
export function observeHttpRequest(method: string, route: string, statusCode: number, seconds: number): void {
  httpDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
}

let processMetrics = false;

/**
 * Adds prom-client's process and Node.js runtime metrics (CPU, memory, event-loop lag, GC) to the
 * registry; idempotent. Entry points call it; tests do not (it starts an event-loop monitor).
 */
export function enableProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry });
}

/** The registry in Prometheus text format. */
export async function renderMetrics(): Promise<string> {
  return metricsRegistry.metrics();
}
