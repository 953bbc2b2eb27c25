/**
 * HTTP observability of the API: one SERVER span per request (OpenTelemetry API; the
 * parent comes from a W3C `traceparent` header when the client sends one), made the active context
 * for the hooks and the handler, so the workflow start of `POST /scraps` and every log line of the
 * request belong to its trace; the `http_request_duration_seconds` histogram by route pattern; and
 * the public `GET /metrics` (Prometheus text format 0.0.4, left out of the OpenAPI document).
 *
 * Hand-written hooks rather than @fastify/otel (needs OpenTelemetry 2.x, while the Temporal
 * interceptors need 1.x) or @opentelemetry/instrumentation-http (patches node:http at load time).
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { METRICS_CONTENT_TYPE, observeHttpRequest, renderMetrics } from '../telemetry/metrics';

const tracer = trace.getTracer('durable-jobs-api');

/** The request's span and its start (performance.now(), ms). */
const spans = new WeakMap<FastifyRequest, { span: Span; start: number }>();

/** Route label of a request: the route pattern (`/cards/:scrapId`), `unmatched` for a 404 without route. */
function routeOf(req: FastifyRequest): string {
  return req.routeOptions.url ?? 'unmatched';
}

/** Trace id of the request's span (32 hex digits), when tracing is installed. */
export function requestTraceId(req: FastifyRequest): string | undefined {
  const sc = spans.get(req)?.span.spanContext();
  return sc && trace.isSpanContextValid(sc) ? sc.traceId : undefined;
}

/** Observes the latency and ends the span, once per request (status 499: the client went away). */
function finish(req: FastifyRequest, status: number): void {
  const entry = spans.get(req);
  if (!entry) return;
  spans.delete(req);
  const route = routeOf(req);
  observeHttpRequest(req.method, route, status, (performance.now() - entry.start) / 1000);
  entry.span.setAttribute('http.response.status_code', status);
  if (route !== 'unmatched') entry.span.setAttribute('http.route', route);
  if (status >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
  entry.span.end();
}

/**
 * Installs the request span, the latency histogram and `GET /metrics` (`auth: 'public'`). Call it
 * before any other hook, so authentication and every later hook run inside the request's span.
 */
export function installObservability(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const parent = propagation.extract(context.active(), req.headers);
    const route = req.routeOptions.url;
    const span = tracer.startSpan(
      route ? `${req.method} ${route}` : req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'url.path': req.url.split('?')[0] ?? '/', 'http.request.id': req.id },
      },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    spans.set(req, { span, start: performance.now() });
    // Every later hook and the handler run in this context (fastify carries it across body parsing).
    context.with(ctx, done);
  });
  app.addHook('onResponse', (req, reply, done) => {
    finish(req, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    finish(req, 499);
    done();
  });

  // A plugin, so the route is registered when the app loads: after the hooks installed next (the
  // input rules' route tracking among them).
  void app.register(async (scope) => {
    scope.get('/metrics', { config: { auth: 'public', limits: 'exempt' }, schema: { hide: true } }, async (_req, reply) =>
      reply.type(METRICS_CONTENT_TYPE).send(await renderMetrics()),
    );
  });
}
