/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, finished spans reach `<endpoint>/v1/traces` as
 * OTLP/HTTP (here a loopback receiver), at the latest when tracing shuts down.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { loadConfig } from '../../../src/families';
import { installProcessTelemetry } from '../../../src/telemetry/process';

it('exports spans to the configured OTLP endpoint with the service name', async () => {
  const received: { path: string; contentType: string | undefined; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const { port } = receiver.address() as AddressInfo;
    const config = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/`, OTEL_SERVICE_NAME: 'otlp-unit' });
    const tracing = installProcessTelemetry(config, 'api');
    expect(tracing.exporting).toBe(true);
    const span = trace.getTracer('unit').startSpan('exported work');
    const { traceId } = span.spanContext();
    span.end();
    await tracing.shutdown(); // flushes the batch

    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/json' });
    const body = received[0]!.body;
    expect(body).toContain(traceId);
    expect(body).toContain('exported work');
    expect(body).toContain('otlp-unit');
  } finally {
    await new Promise<void>((r) => receiver.close(() => r()));
  }
});
