/** pino loggers for every process, and the bridge that routes the Temporal SDK's logs into pino. */
import pino, { type Logger } from 'pino';
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';

/** Log paths never written (bearer tokens, GitHub access tokens and their ciphertext, API keys). */
export const REDACT_PATHS = ['req.headers.authorization', '*.token', '*.apiKey', '*.accessToken', '*.tokenEncrypted', 'body.accessToken'];

/**
 * Creates the process logger; `component` names the entry point (api, worker-jobs, worker-ai …);
 * `destination` defaults to stdout (tests capture lines with their own stream).
 */
export function createLogger(level: string, component: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { component }, redact: REDACT_PATHS }, destination);
}

/**
 * Adapts pino to the Temporal SDK logger interface, so activity and workflow log lines (which carry
 * workflowId, runId, activityType …) land in the same structured stream.
 */
export function temporalLogger(log: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const fn = { TRACE: log.trace, DEBUG: log.debug, INFO: log.info, WARN: log.warn, ERROR: log.error }[level];
    fn.call(log, meta ?? {}, message);
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
