/**
 * Observability set-up of one process, called by every entry point: the API, each
 * worker, the demo. The API serves the registry on its own `/metrics`; a worker process opens its
 * own metrics server and the Temporal SDK's exporter (src/workers/run.ts startWorkerTelemetry).
 */
import type { CoreConfig as Config } from '../config';
import { enableProcessMetrics } from './metrics';
import { installTracing, type Tracing } from './tracing';

/**
 * Installs tracing (OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set; `service.name` from
 * OTEL_SERVICE_NAME, else `durable-jobs-<component>`) and the process metrics. Idempotent.
 */
export function installProcessTelemetry(config: Config, component: string): Tracing {
  enableProcessMetrics();
  return installTracing({ serviceName: config.telemetry.serviceName ?? `durable-jobs-${component}`, otlpEndpoint: config.telemetry.otlpEndpoint });
}
