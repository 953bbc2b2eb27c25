/**
 * Metrics of the portal-link family, in the process's registry (src/core/metrics.ts): PO-7's
 * `scrape.job.callback.duplicate` as the Prometheus counter `scrape_job_callback_duplicate_total`.
 */
import { Counter } from 'prom-client';
import { metricsRegistry } from '../../telemetry/metrics';

const duplicates = new Counter({
  name: 'scrape_job_callback_duplicate_total',
  help: 'PO-7 scrape callbacks received again for a job and attempt already accepted (answered like the first, nothing applied)',
  registers: [metricsRegistry],
});

/** PO-7 the family's counters. */
export const portalMetrics = {
  /** One repeated callback. */
  callbackDuplicate(): void {
    duplicates.inc();
  },
  /** The counter's current value (tests, bench). */
  async callbackDuplicates(): Promise<number> {
    return (await duplicates.get()).values[0]?.value ?? 0;
  },
};
