/**
 * Installs the Temporal runtime for the fault scripts before anything else does: SDK and native
 * core logs at ERROR only (reconnect warnings during an injected outage are expected noise).
 * Imported first by harness.ts.
 */
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';

Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }), forward: {} } },
});
