/** pino loggers for every process, and the bridge that routes the Temporal SDK's logs into pino. */
import pino, { type Logger } from 'pino';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';

/** Log paths never written (bearer tokens, GitHub access tokens and their ciphertext, API keys). */
export const REDACT_PATHS = ['req.headers.authorization', '*.token', '*.apiKey', '*.accessToken', '*.tokenEncrypted', 'body.accessToken', '*.password', 'body.password'];

/**
 * Creates the process logger; `component` names the entry point (api, worker-jobs, worker-ai …);
 * `destination` defaults to stdout (tests capture lines with their own stream).
 */
export function createLogger(level: string, component: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { component }, redact: REDACT_PATHS, mixin: traceMixin }, destination);
}

/**
 * pino mixin: `traceId` and `spanId` of the active OpenTelemetry span (the HTTP request's, an
 * activity's), so log lines and traces join; nothing outside a span.
 */
export function traceMixin(): { traceId?: string; spanId?: string } {
  const sc = trace.getSpan(context.active())?.spanContext();
  return sc && isSpanContextValid(sc) ? { traceId: sc.traceId, spanId: sc.spanId } : {};
}

/**
 * The tracing interceptors put `trace_id`/`span_id`/`trace_flags` on workflow and activity log
 * metadata (workflow lines are written outside any span); renamed to the mixin's `traceId`/`spanId`.
 */
function traceKeys(meta: LogMetadata): LogMetadata {
  if (typeof meta.trace_id !== 'string') return meta;
  const { trace_id: traceId, span_id: spanId, trace_flags: _flags, ...rest } = meta;
  return { ...rest, traceId, spanId };
}

/**
 * Adapts pino to the Temporal SDK logger interface, so activity and workflow log lines (which carry
 * workflowId, runId, activityType …) land in the same structured stream.
 */
export function temporalLogger(log: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const fn = { TRACE: log.trace, DEBUG: log.debug, INFO: log.info, WARN: log.warn, ERROR: log.error }[level];
    fn.call(log, meta ? traceKeys(meta) : {}, message);
  };
  return {
    log: write,
    trace: (m, meta) => write('TRACE', m, meta),
    debug: (m, meta) => write('DEBUG', m, meta),
    info: (m, meta) => write('INFO', m, meta),
    warn: (m, meta) => write('WARN', m, meta),
    error: (m, meta) => write('ERROR', m, meta),
  };
}
