/** Test helpers of per-request webhooks over a test stack: the caller's signing secret and one relay pass. */
import { randomUUID } from 'node:crypto';
import { maintenanceTaskQueue } from '../../src/core/contracts';
import type { Stack } from './stack';

/** Creates or rotates `user`'s signing secret (`POST /webhooks/signing-secret`); returns it (`whsec_…`). */
export async function signingSecret(stack: Stack, user: { auth: Record<string, string> }): Promise<string> {
  const res = await stack.app.inject({ method: 'POST', url: '/webhooks/signing-secret', headers: user.auth });
  expect([200, 201]).toContain(res.statusCode);
  return res.json().secret as string;
}

/** One relay pass (`relayWebhookDeliveriesWorkflow` on the maintenance queue), to its end. */
export async function relayWebhookDeliveries(stack: Stack): Promise<unknown> {
  return stack.client.workflow.execute('relayWebhookDeliveriesWorkflow', {
    taskQueue: maintenanceTaskQueue(stack.config.temporal.taskQueuePrefix), workflowId: `test-relay-${randomUUID()}`, args: [{}],
  });
}
