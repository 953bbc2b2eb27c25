/** The core's workflows on the `jobs` task queue: the reconciler, recovery and the benchmark baseline. */
export { reconcilePendingJobsWorkflow, purgeIdempotencyRecordsWorkflow, noopWorkflow } from './maintenance';
export { recoverStaleJobsWorkflow, retryFailedJobsWorkflow, retryJobWorkflow } from './recovery';
export { webhookDeliveryWorkflow, relayWebhookDeliveriesWorkflow } from './webhooks';
