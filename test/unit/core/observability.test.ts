/**
 * Observability without servers: the request span and its trace id in 5xx problem details, the HTTP
 * histogram's bounded route label, the public /metrics, the trace id in log lines (pino mixin and
 * the Temporal log bridge), the job metrics of the core, the worker metrics server, and config.
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import type { PrismaClient } from '@prisma/client';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { installAuth } from '../../../src/api/auth';
import { installObservability } from '../../../src/api/observability';
import { installProblemHandlers } from '../../../src/api/problem';
import { CORE_ERRORS } from '../../../src/core/errors';
import { loadConfig } from '../../../src/families';
import { jobMetrics } from '../../../src/core/metrics';
import { metricsRegistry, renderMetrics } from '../../../src/telemetry/metrics';
import { createLogger, temporalLogger } from '../../../src/log';
import { startMetricsServer } from '../../../src/telemetry/metrics-server';
import { runtimeTelemetryOptions, telemetryWorkerOptions, TRACE_HEADER_WORKFLOW_MODULES, WORKFLOW_INTERCEPTOR_MODULES, workerTelemetry } from '../../../src/telemetry/temporal';
import { TRACE_CONTEXT_HEADER, withTraceContext } from '../../../src/telemetry/trace-headers-workflow';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { activeTraceId, installTracing } from '../../../src/telemetry/tracing';

const exporter = new InMemorySpanExporter();
const tracing = installTracing({ serviceName: 'unit', spanProcessor: new SimpleSpanProcessor(exporter) });
let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify();
  installObservability(app);
  installProblemHandlers(app);
  await installAuth(app, {} as PrismaClient); // no token is ever sent: the database is never asked
  app.get('/boom', { config: { auth: 'public' } }, async () => {
    throw new Error('database on fire');
  });
  app.get('/gone', { config: { auth: 'public' } }, async () => {
    throw CORE_ERRORS.problem('NOT_FOUND', 'gone');
  });
  app.get('/items/:id', { config: { auth: 'public' } }, async () => ({ ok: true }));
  app.get('/private', async () => ({ ok: true }));
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await tracing.shutdown();
});

const lines = () => {
  const out: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { out, stream };
};

describe('request span and problem details', () => {
  it('a 5xx names the trace of its request span; the span is an error', async () => {
    exporter.reset();
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toMatchObject({ code: 'INTERNAL', status: 500 });
    expect(body.detail).not.toContain('fire');
    const span = exporter.getFinishedSpans().find((s) => s.name === 'GET /boom');
    expect(span).toBeDefined();
    expect(body.traceId).toBe(span?.spanContext().traceId);
    expect(body.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(span?.attributes['http.response.status_code']).toBe(500);
  });

  it('a 4xx carries no trace id', async () => {
    for (const url of ['/gone', '/private', '/nowhere']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.json()).not.toHaveProperty('traceId');
    }
  });

  it('continues a W3C traceparent sent by the caller', async () => {
    exporter.reset();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    await app.inject({ method: 'GET', url: '/items/1', headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
    const span = exporter.getFinishedSpans().find((s) => s.name === 'GET /items/:id');
    expect(span?.spanContext().traceId).toBe(traceId);
    expect(span?.parentSpanId).toBe('b7ad6b7169203331');
  });
});

describe('GET /metrics and the HTTP histogram', () => {
  it('is public and labels requests by route pattern, `unmatched` for unknown paths, never the raw URL', async () => {
    await app.inject({ method: 'GET', url: '/items/secret-id-42' });
    await app.inject({ method: 'GET', url: '/no/such/path-xyz' });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/items\/:id",status_code="200"\} \d+$/m);
    expect(res.body).toMatch(/^http_request_duration_seconds_count\{method="GET",route="unmatched",status_code="404"\} \d+$/m);
    expect(res.body).not.toContain('secret-id-42');
    expect(res.body).not.toContain('path-xyz');
  });
});

describe('job metrics', () => {
  const value = async (name: string, labels: Record<string, string>) => {
    const m = await metricsRegistry.getSingleMetric(name)?.get();
    return m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
  };

  it('counts terminal transitions with their duration since enqueue, and ignores PROCESSING', async () => {
    const created = new Date('2026-01-01T00:00:00Z');
    jobMetrics.transitioned('UNIT_TYPE', 'PROCESSING', created, new Date('2026-01-01T00:00:01Z'));
    jobMetrics.transitioned('UNIT_TYPE', 'COMPLETED', created, new Date('2026-01-01T00:00:42Z'));
    jobMetrics.transitioned('UNIT_TYPE', 'FAILED', created, new Date('2026-01-01T00:00:03Z'));
    expect(await value('jobs_completed_total', { job_type: 'UNIT_TYPE' })).toBe(1);
    expect(await value('jobs_failed_total', { job_type: 'UNIT_TYPE' })).toBe(1);
    const m = await metricsRegistry.getSingleMetric('job_duration_seconds')?.get();
    const sum = m?.values.find((v) => (v as { metricName?: string }).metricName === 'job_duration_seconds_sum' && v.labels.job_type === 'UNIT_TYPE' && v.labels.status === 'COMPLETED');
    expect(sum?.value).toBe(42);
  });

  it('counts rejected transitions by projection and target status, reconciler passes and recovery actions by rule', async () => {
    jobMetrics.rejected('async_jobs', 'COMPLETED');
    jobMetrics.recovery('reconcile-pending-jobs', ['started', 'start-failed', 'started']);
    jobMetrics.recovery('stale-jobs', ['marked-failed', 'requeued', 'started']);
    expect(await value('projection_transitions_rejected_total', { projection: 'async_jobs', to: 'COMPLETED' })).toBe(1);
    expect(await value('job_recovery_actions_total', { rule: 'reconcile-pending-jobs', action: 'started' })).toBe(2);
    expect(await value('job_recovery_actions_total', { rule: 'reconcile-pending-jobs', action: 'start-failed' })).toBe(1);
    expect(await value('job_recovery_actions_total', { rule: 'reconcile-pending-jobs', action: 'already-running' })).toBe(0);
    expect(await value('job_recovery_actions_total', { rule: 'stale-jobs', action: 'requeued' })).toBe(1);
  });
});

describe('trace ids in log lines', () => {
  it('the pino mixin adds traceId/spanId inside a span and nothing outside', () => {
    const { out, stream } = lines();
    const log = createLogger('info', 'unit', stream);
    log.info('outside');
    let inside: { traceId: string; spanId: string } | undefined;
    trace.getTracer('unit').startActiveSpan('work', (span) => {
      inside = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
      expect(activeTraceId()).toBe(inside.traceId);
      log.info('inside');
      span.end();
    });
    expect(out[0]).not.toHaveProperty('traceId');
    expect(out[1]).toMatchObject({ msg: 'inside', ...inside });
  });

  it('the Temporal log bridge renames the interceptors\' trace_id/span_id', () => {
    const { out, stream } = lines();
    temporalLogger(createLogger('info', 'unit', stream)).info('workflow line', { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), trace_flags: '01', workflowId: 'w' });
    expect(out[0]).toMatchObject({ msg: 'workflow line', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), workflowId: 'w' });
    expect(out[0]).not.toHaveProperty('trace_id');
    expect(out[0]).not.toHaveProperty('trace_flags');
  });
});

describe('worker metrics server', () => {
  it('serves the registry on GET /metrics only', async () => {
    const server = await startMetricsServer('127.0.0.1', 0);
    try {
      const res = await fetch(server.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(await res.text()).toBe(await renderMetrics());
      expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('fails fast when the port is taken', async () => {
    const first = await startMetricsServer('127.0.0.1', 0);
    try {
      await expect(startMetricsServer('127.0.0.1', first.port)).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});

describe('worker and runtime options', () => {
  it('adds the workflow interceptor module only when the worker bundles itself, and the sink only with workflows', () => {
    const t = workerTelemetry(tracing);
    expect(telemetryWorkerOptions(undefined, 'path')).toEqual({});
    expect(telemetryWorkerOptions(t, 'path')).toEqual({ interceptors: { activity: t.activity, workflowModules: [...WORKFLOW_INTERCEPTOR_MODULES] }, sinks: t.sinks });
    expect(telemetryWorkerOptions(t, 'bundle')).toEqual({ interceptors: { activity: t.activity }, sinks: t.sinks });
    expect(telemetryWorkerOptions(t, 'none')).toEqual({ interceptors: { activity: t.activity } });
  });

  it('a process exporting no spans bundles only the trace-header module, without the span sink', () => {
    const t = { ...workerTelemetry(tracing), spans: false };
    expect(telemetryWorkerOptions(t, 'path')).toEqual({ interceptors: { activity: t.activity, workflowModules: [...TRACE_HEADER_WORKFLOW_MODULES] } });
    expect(telemetryWorkerOptions(t, 'none')).toEqual({ interceptors: { activity: t.activity } });
  });

  it('the trace-header module forwards the header the OpenTelemetry interceptors read, without replacing one already set', () => {
    expect(TRACE_CONTEXT_HEADER).toBe(TRACE_HEADER);
    const trace = { metadata: {}, data: new Uint8Array([1]) };
    const own = { metadata: {}, data: new Uint8Array([2]) };
    expect(withTraceContext({}, trace)).toEqual({ [TRACE_HEADER]: trace });
    expect(withTraceContext({ [TRACE_HEADER]: own }, trace)).toEqual({ [TRACE_HEADER]: own });
    expect(withTraceContext({ other: own }, undefined)).toEqual({ other: own });
  });

  it('the Temporal SDK exporter is off unless TEMPORAL_METRICS_BIND is set', () => {
    expect(runtimeTelemetryOptions(undefined)).toEqual({});
    expect(runtimeTelemetryOptions('127.0.0.1:9465').telemetryOptions?.metrics).toMatchObject({ prometheus: { bindAddress: '127.0.0.1:9465', useSecondsForDurations: true } });
  });

  it('config: everything off by default; bad values fail fast naming the variable', () => {
    expect(loadConfig({}).telemetry).toEqual({ metricsHost: '127.0.0.1', metricsPort: undefined, temporalMetricsBind: undefined, otlpEndpoint: undefined, serviceName: undefined });
    const on = loadConfig({ METRICS_PORT: '9464', TEMPORAL_METRICS_BIND: '[::1]:9465', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).telemetry;
    expect(on).toMatchObject({ metricsPort: 9464, temporalMetricsBind: '[::1]:9465', otlpEndpoint: 'http://127.0.0.1:4318' });
    expect(() => loadConfig({ TEMPORAL_METRICS_BIND: '9465' })).toThrow(/TEMPORAL_METRICS_BIND/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});
