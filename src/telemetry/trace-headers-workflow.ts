/**
 * Workflow interceptor module of a worker whose process exports no spans (no OTLP endpoint): the
 * trace context the workflow was started with (the `_tracer-data` header of
 * @temporalio/interceptors-opentelemetry's client interceptor) is copied onto the headers of the
 * activities, local activities, child workflows and continue-as-new it schedules, so activity log
 * lines keep the request's trace id. It makes no spans: the OpenTelemetry workflow interceptors
 * would build them in the sandbox only for the process to drop them, and that is most of a
 * workflow task's CPU (docs/decisions.md, 2026-12-03). Bundled into the workflow code (keep it
 * free of Node.js and OpenTelemetry imports).
 */
import type { Headers, Payload } from '@temporalio/common';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The header the OpenTelemetry interceptors carry a trace context in (their `TRACE_HEADER`). */
export const TRACE_CONTEXT_HEADER = '_tracer-data';

/** `headers` with `trace` under {@link TRACE_CONTEXT_HEADER}, unless absent or already set. */
export function withTraceContext(headers: Headers, trace: Payload | undefined): Headers {
  return trace === undefined || headers[TRACE_CONTEXT_HEADER] !== undefined ? headers : { ...headers, [TRACE_CONTEXT_HEADER]: trace };
}

/** Per workflow run (the factory is called once per run): its start's trace context, forwarded outward. */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let trace: Payload | undefined;
  return {
    inbound: [
      {
        execute(input, next) {
          trace = input.headers[TRACE_CONTEXT_HEADER];
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next({ ...input, headers: withTraceContext(input.headers, trace) }),
        scheduleLocalActivity: (input, next) => next({ ...input, headers: withTraceContext(input.headers, trace) }),
        startChildWorkflowExecution: (input, next) => next({ ...input, headers: withTraceContext(input.headers, trace) }),
        continueAsNew: (input, next) => next({ ...input, headers: withTraceContext(input.headers, trace) }),
      },
    ],
  };
};
