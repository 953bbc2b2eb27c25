/**
 * Completion webhooks' workflows: the delivery of one event to one endpoint, and the outbox relay
 * pass (run by the `relay-webhook-deliveries` Schedule on the `maintenance` queue).
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import { MAINTENANCE_RETRY, PROJECTION_RETRY } from '../../core/activity-options';
import type { WebhookActivities } from '../../activities/core/webhooks';
import type { RelayReport, WebhookDeliveryInput } from '../../core/webhook-start';

/**
 * Delivers one event: an attempt, then (on a failure) a durable sleep doubling from
 * `initialSeconds` up to `maxIntervalSeconds`, again, until an attempt succeeds or the next one
 * would start past `budgetSeconds` after the first: then the delivery is FAILED. Every attempt is
 * recorded by its activity; an activity retry (database down) is not an attempt.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<'succeeded' | 'failed' | 'gone'> {
  const acts = proxyActivities<WebhookActivities>({ startToCloseTimeout: '3m', retry: PROJECTION_RETRY });
  const first = Date.now();
  let wait = input.initialSeconds;
  for (;;) {
    const result = await acts.attemptWebhookDelivery({ deliveryId: input.deliveryId });
    if (result === 'succeeded' || result === 'gone') return result;
    if ((Date.now() - first) / 1000 + wait > input.budgetSeconds) {
      await acts.failWebhookDelivery({ deliveryId: input.deliveryId });
      return 'failed';
    }
    await sleep(Math.round(wait * 1000));
    wait = Math.min(wait * 2, input.maxIntervalSeconds);
  }
}

/** The outbox relay pass: starts the delivery workflow of every PENDING delivery (at most `limit`, default 500). */
export async function relayWebhookDeliveriesWorkflow(input: { limit?: number } = {}): Promise<RelayReport> {
  const { relayWebhookDeliveries } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '5m', heartbeatTimeout: '1m', retry: MAINTENANCE_RETRY });
  return relayWebhookDeliveries({ limit: input.limit ?? 500 });
}
