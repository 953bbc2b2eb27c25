/**
 * Tracing on the real stack (PostgreSQL, Temporal dev server, in-process workers with the
 * tracing interceptors, the API through inject): one trace from `POST /scraps` through the
 * workflow start, the workflow and its activities, with the trace id in the request's log lines;
 * and `GET /metrics` counting the scrap's jobs and its request by route pattern.
 */
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { jobWorkflowId } from '../../../src/core/contracts';
import { transitionJob } from '../../../src/core/projection';
import { JOB_WORKFLOW_TYPES } from '../../../src/families';
import { createLogger } from '../../../src/log';
import { installTracing } from '../../../src/telemetry/tracing';
import { PG_PARTIAL, SOURDOUGH } from '../../fixtures/texts';
import { pollUntil } from '../../support/poll';
import { captureJsonLogs } from '../../support/log-capture';
import { startStack, waitForJob, type Stack } from '../../support/stack';

const exporter = new InMemorySpanExporter();
const tracing = installTracing({ serviceName: 'observability-test', spanProcessor: new SimpleSpanProcessor(exporter) });
const { stream: logStream, lines: logLines } = captureJsonLogs();

let stack: Stack;
let alice: Awaited<ReturnType<Stack['newUser']>>;

beforeAll(async () => {
  stack = await startStack({ tracing, logger: createLogger('info', 'api', logStream) });
  alice = await stack.newUser('alice');
});
afterAll(async () => {
  await stack?.stop();
  await tracing.shutdown();
});

async function submit(content: string): Promise<{ scrapId: string; analysisJobId: string; refineJobId: string }> {
  const res = await stack.app.inject({ method: 'POST', url: '/scraps', headers: alice.auth, payload: { content } });
  expect(res.statusCode).toBe(202);
  return res.json();
}

const names = (spans: ReadableSpan[]) => spans.map((s) => s.name);

describe('tracing: one scrap, one trace', () => {
  it('joins the HTTP request span, StartWorkflow, RunWorkflow and the activities under one trace id', async () => {
    exporter.reset();
    const ids = await submit(SOURDOUGH);
    expect(await waitForJob(stack, ids.analysisJobId, alice.auth)).toMatchObject({ status: 'COMPLETED', jobType: 'CARD_ANALYSIS' });

    const http = exporter.getFinishedSpans().find((s) => s.name === 'POST /scraps' && s.kind === SpanKind.SERVER);
    expect(http).toBeDefined();
    expect(http?.attributes['http.route']).toBe('/scraps');
    expect(http?.attributes['http.response.status_code']).toBe(202);
    const traceId = http!.spanContext().traceId;

    const workflowType = JOB_WORKFLOW_TYPES.CARD_ANALYSIS;
    const workflowId = jobWorkflowId('CARD_ANALYSIS', ids.scrapId);
    const inTrace = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    // Workflow spans leave the sandbox through a sink after their activation: poll for them.
    const spans = await pollUntil(inTrace, (s) => names(s).includes(`RunWorkflow:${workflowType}`) && names(s).includes('RunActivity:storeCard'), {
      describe: `the workflow and activity spans of trace ${traceId}`,
    });

    const start = spans.find((s) => s.name === `StartWorkflow:${workflowType}` && s.attributes.temporalWorkflowId === workflowId);
    expect(start).toBeDefined();
    expect(start?.parentSpanId).toBe(http!.spanContext().spanId); // started inside the request
    expect(names(spans)).toEqual(expect.arrayContaining([
      `RunWorkflow:${workflowType}`,
      'StartActivity:analyzeScrap',
      'RunActivity:beginJob',
      'RunActivity:analyzeScrap', // the `ai` worker
      'RunActivity:storeCard',
    ]));
    const activities = spans.filter((s) => s.name.startsWith('RunActivity:') && s.attributes.temporalWorkflowId === workflowId);
    expect(activities.length).toBeGreaterThanOrEqual(3);
    // SCRAP_REFINE was started by the same request: same trace.
    expect(spans.some((s) => s.name.startsWith('StartWorkflow:') && s.attributes.temporalWorkflowId === jobWorkflowId('SCRAP_REFINE', ids.scrapId))).toBe(true);
  });

  it('over real HTTP: continues the caller\'s W3C trace, and the workflow start is a child of the request span', async () => {
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = stack.app.server.address() as { port: number };
    exporter.reset();
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const body = Buffer.from(JSON.stringify({ content: '# Tracing\n\nA span context travels in the W3C traceparent header between processes.' }));
    // A slow client: the body arrives in two writes after the headers (parsing resumes on socket events).
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1', port, method: 'POST', path: '/scraps',
          headers: { ...alice.auth, 'content-type': 'application/json', 'content-length': body.length, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      void (async () => {
        await sleep(50);
        req.write(body.subarray(0, 10));
        await sleep(50);
        req.end(body.subarray(10));
      })();
    });
    expect(status).toBe(202);
    const ids = JSON.parse(text) as { scrapId: string; analysisJobId: string };
    const http = await pollUntil(() => exporter.getFinishedSpans().find((s) => s.name === 'POST /scraps'), Boolean, { describe: 'the request span' });
    expect(http?.spanContext().traceId).toBe(callerTrace);
    expect(http?.parentSpanId).toBe('00f067aa0ba902b7');
    const start = exporter.getFinishedSpans().find((s) => s.name.startsWith('StartWorkflow:') && s.attributes.temporalWorkflowId === jobWorkflowId('CARD_ANALYSIS', ids.scrapId));
    expect(start?.parentSpanId).toBe(http?.spanContext().spanId);
    await waitForJob(stack, ids.analysisJobId, alice.auth);
  });

  it('writes the request trace id into the request log lines', async () => {
    exporter.reset();
    const ids = await submit(PG_PARTIAL);
    const http = exporter.getFinishedSpans().find((s) => s.name === 'POST /scraps');
    expect(http).toBeDefined();
    const accepted = logLines.find((l) => l.msg === 'scrap accepted' && l.scrapId === ids.scrapId);
    expect(accepted?.traceId).toBe(http!.spanContext().traceId);
    expect(accepted?.spanId).toBe(http!.spanContext().spanId);
    await waitForJob(stack, ids.analysisJobId, alice.auth);
  });
});

/** Value of the sample `name{labels…}` in a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const got = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('GET /metrics', () => {
  const scrape = async () => {
    const res = await stack.app.inject({ method: 'GET', url: '/metrics' }); // public: no token
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.body;
  };

  it('counts a completed CARD_ANALYSIS and the request by route pattern', async () => {
    const before = await scrape();
    const ids = await submit('# Metrics\n\nPrometheus scrapes counters and histograms over HTTP in a text format.');
    expect(await waitForJob(stack, ids.analysisJobId, alice.auth)).toMatchObject({ status: 'COMPLETED' });
    const after = await scrape();

    for (const [name, labels] of [
      ['jobs_completed_total', { job_type: 'CARD_ANALYSIS' }],
      ['jobs_started_total', { job_type: 'CARD_ANALYSIS', outcome: 'started' }],
      ['job_duration_seconds_count', { job_type: 'CARD_ANALYSIS', status: 'COMPLETED' }],
    ] as const) {
      expect({ name, value: sample(after, name, labels) }).toEqual({ name, value: sample(before, name, labels) + 1 });
    }
    const posts = { method: 'POST', route: '/scraps', status_code: '202' };
    expect(sample(after, 'http_request_duration_seconds_count', posts)).toBe(sample(before, 'http_request_duration_seconds_count', posts) + 1);
    // waitForJob polled GET /async-jobs/<id>: counted under the pattern, never the raw URL.
    expect(sample(after, 'http_request_duration_seconds_count', { route: '/async-jobs/:jobId', status_code: '200' })).toBeGreaterThan(0);
    expect(after).not.toContain(ids.analysisJobId);
  });

  it('counts a late duplicate transition as rejected, by projection and target status', async () => {
    const ids = await submit('# Guards\n\nA guarded UPDATE with a status condition makes a repeated transition a no-op.');
    expect(await waitForJob(stack, ids.analysisJobId, alice.auth)).toMatchObject({ status: 'COMPLETED' });
    const labels = { projection: 'async_jobs', to: 'COMPLETED' };
    const before = sample(await scrape(), 'projection_transitions_rejected_total', labels);
    expect(await transitionJob(stack.db, ids.analysisJobId, 'COMPLETED')).toEqual({ changed: false, status: 'COMPLETED' });
    const after = await scrape();
    expect(sample(after, 'projection_transitions_rejected_total', labels)).toBe(before + 1);
  });

  it('is left out of the OpenAPI document', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/scraps');
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });
});
