/**
 * OpenTelemetry tracing of one process: a tracer provider with W3C trace-context
 * propagation and an AsyncLocalStorage context manager, registered globally, so the HTTP span
 * (src/api/tracing.ts), the Temporal interceptors (src/telemetry/temporal.ts) and the log mixin
 * (src/log.ts) see the same trace. Spans go to OTLP/HTTP when an endpoint is configured; without
 * one they are created and dropped, so trace ids still exist and travel through Temporal headers.
 *
 * OpenTelemetry JS 1.x (sdk-trace-base 1.30): the line @temporalio/interceptors-opentelemetry 1.24
 * depends on; 2.x would be a second, incompatible SDK in the same process.
 */
import { context, trace, isSpanContextValid } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { Resource, type IResource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';

/** Options of {@link installTracing}. */
export interface TracingOptions {
  /** `service.name` of every span of this process (e.g. `durable-jobs-api`). */
  serviceName: string;
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `<endpoint>/v1/traces`. */
  otlpEndpoint?: string | undefined;
  /** Replaces the exporter pipeline (tests: a SimpleSpanProcessor over an InMemorySpanExporter). */
  spanProcessor?: SpanProcessor;
}

/** The installed tracing of the process. */
export interface Tracing {
  /** Where finished spans go; the Temporal workflow-span sink feeds the same processor. */
  readonly spanProcessor: SpanProcessor;
  readonly resource: IResource;
  /** `service.name` given at installation. */
  readonly serviceName: string;
  /** Whether spans are exported (an OTLP endpoint or a given processor). */
  readonly exporting: boolean;
  /** Flushes pending spans and stops exporting (call once at process shutdown). */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

/**
 * Installs the process's tracer provider, propagator and context manager; the first call wins and
 * later calls return it (the demo runs the API and the workers in one process).
 */
export function installTracing(opts: TracingOptions): Tracing {
  if (installed) return installed;
  const resource = Resource.default().merge(new Resource({ 'service.name': opts.serviceName }));
  const spanProcessor =
    opts.spanProcessor ??
    (opts.otlpEndpoint
      ? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${opts.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` }))
      : new NoopSpanProcessor());
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager(), propagator: new W3CTraceContextPropagator() });
  installed = {
    spanProcessor,
    resource,
    serviceName: opts.serviceName,
    exporting: Boolean(opts.spanProcessor ?? opts.otlpEndpoint),
    shutdown: () => provider.shutdown(),
  };
  return installed;
}

/** The tracing installed in this process, if any. */
export function currentTracing(): Tracing | undefined {
  return installed;
}

/** Trace id (32 hex digits) of the active span, or undefined outside a (valid) span. */
export function activeTraceId(): string | undefined {
  const ctx = trace.getSpan(context.active())?.spanContext();
  return ctx && isSpanContextValid(ctx) ? ctx.traceId : undefined;
}
