/**
 * Temporal side of observability: @temporalio/interceptors-opentelemetry for the
 * client (StartWorkflow spans whose context travels in the workflow's headers), the workflows
 * (RunWorkflow / StartActivity spans, made in the sandbox and handed out through the `exporter`
 * sink) and the activities (RunActivity spans, parented by the workflow's headers); and the SDK
 * runtime's own Prometheus exporter (Temporal Core metrics: polls, task latencies, slots …).
 */
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import type { RuntimeOptions, WorkerInterceptors, WorkerOptions } from '@temporalio/worker';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { Tracing } from './tracing';

/**
 * Workflow interceptor modules of the tracing interceptors: `workflowInterceptorModules` of
 * `bundleWorkflowCode` (a prebuilt bundle), or set by {@link telemetryWorkerOptions} when the
 * worker bundles from `workflowsPath` itself.
 */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

/**
 * Workflow interceptor module of a process that exports no spans: it only forwards the start's
 * trace context to what the workflow schedules (src/telemetry/trace-headers-workflow.ts).
 */
export const TRACE_HEADER_WORKFLOW_MODULES: readonly string[] = [require.resolve('./trace-headers-workflow')];

/** Interceptors of a Temporal `Client`: workflow starts carry the caller's trace context; `more` run after the tracing one. */
export function clientInterceptors(more: WorkflowClientInterceptor[] = []): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor(), ...more] };
}

/** What a worker factory needs to trace its activities and workflows. */
export interface WorkerTelemetry {
  /** Activity interceptors (RunActivity spans, trace ids in activity log lines). */
  activity: NonNullable<WorkerInterceptors['activity']>;
  /** The `exporter` sink through which workflow spans reach the process's span processor. */
  sinks: NonNullable<WorkerOptions['sinks']>;
  /**
   * Whether the process exports spans ({@link Tracing.exporting}). When false, workers bundling
   * their workflows get {@link TRACE_HEADER_WORKFLOW_MODULES} instead of the span-making ones.
   */
  spans: boolean;
}

/** The worker-side interceptors and sink over the process's {@link Tracing}. */
export function workerTelemetry(tracing: Tracing): WorkerTelemetry {
  return {
    activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
    spans: tracing.exporting,
  };
}

/**
 * The `interceptors` and `sinks` of `Worker.create` for {@link WorkerTelemetry} (none when absent):
 * `workflows` says whether the worker runs workflows bundled from `workflowsPath` (the interceptor
 * module is added: the span-making ones and their sink when `telemetry.spans`, else only
 * {@link TRACE_HEADER_WORKFLOW_MODULES}), from a prebuilt bundle (it must already contain
 * {@link WORKFLOW_INTERCEPTOR_MODULES}) or none (an activity-only worker: no sink).
 */
export function telemetryWorkerOptions(
  telemetry: WorkerTelemetry | undefined,
  workflows: 'path' | 'bundle' | 'none',
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!telemetry) return {};
  const interceptors: WorkerInterceptors = { activity: telemetry.activity };
  if (workflows === 'path') {
    interceptors.workflowModules = [...(telemetry.spans ? WORKFLOW_INTERCEPTOR_MODULES : TRACE_HEADER_WORKFLOW_MODULES)];
    return telemetry.spans ? { interceptors, sinks: telemetry.sinks } : { interceptors };
  }
  return workflows === 'none' ? { interceptors } : { interceptors, sinks: telemetry.sinks };
}

/**
 * `telemetryOptions` of `Runtime.install`: the SDK's Prometheus exporter on `bindAddress`
 * (`host:port`, serving `/metrics`; TEMPORAL_METRICS_BIND), with Prometheus naming (counters
 * `_total`, histograms in seconds with a `_seconds` suffix); nothing when unset.
 */
export function runtimeTelemetryOptions(bindAddress: string | undefined): Pick<RuntimeOptions, 'telemetryOptions'> {
  if (!bindAddress) return {};
  return {
    telemetryOptions: {
      metrics: { prometheus: { bindAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } },
    },
  };
}
