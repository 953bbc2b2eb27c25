/**
 * Starting a delivery's workflow (`webhookDeliveryWorkflow`, ID `webhook-delivery:<deliveryId>`,
 * on the `jobs` queue) and the relay: the outbox pass that starts the workflow of every PENDING
 * delivery (written by the terminal-status triggers or by a redelivery) and marks it DELIVERING.
 * A start is keyed by the workflow ID, so a repeated or concurrent pass starts nothing twice.
 */
import type { Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { PrismaClient } from '@prisma/client';
import type { CoreConfig } from '../config';
import { reconcile, countOf, type PassLog } from './reconciler';
import { startWorkflow, type StartOutcome } from './workflow-start';
import { webhookDeliveryWorkflowId } from './webhook-endpoints';

/** Input of `webhookDeliveryWorkflow`: the delivery and its retry schedule (seconds). */
export interface WebhookDeliveryInput {
  deliveryId: string;
  budgetSeconds: number;
  initialSeconds: number;
  maxIntervalSeconds: number;
}

/** The workflow input of delivery `deliveryId` under `config`'s retry settings. */
export function deliveryInput(config: Pick<CoreConfig, 'webhooks'>, deliveryId: string): WebhookDeliveryInput {
  const w = config.webhooks;
  return { deliveryId, budgetSeconds: w.retryBudgetSeconds, initialSeconds: w.retryInitialSeconds, maxIntervalSeconds: w.retryMaxIntervalSeconds };
}

/** Starts delivery `deliveryId`'s workflow on `taskQueue` and marks a PENDING row DELIVERING. */
export async function startDelivery(db: PrismaClient, client: Client, config: Pick<CoreConfig, 'webhooks'>, taskQueue: string, deliveryId: string): Promise<StartOutcome> {
  const outcome = await startWorkflow(client, {
    workflowType: 'webhookDeliveryWorkflow',
    workflowId: webhookDeliveryWorkflowId(deliveryId),
    taskQueue,
    args: [deliveryInput(config, deliveryId)],
    reuse: 'reject-duplicate',
    searchAttributes: new TypedSearchAttributes([]),
    memo: { deliveryId },
    jobType: 'webhook-delivery',
    workClass: 'batch',
  });
  await db.webhookDelivery.updateMany({ where: { id: deliveryId, status: 'PENDING' }, data: { status: 'DELIVERING' } });
  return outcome;
}

/** What one relay pass did. */
export interface RelayReport {
  examined: number;
  started: number;
  alreadyRunning: number;
  failedToStart: number;
}

/** One relay pass over at most `limit` PENDING deliveries, oldest first (see the module comment). */
export async function relayDeliveries(db: PrismaClient, client: Client, config: Pick<CoreConfig, 'webhooks'>, taskQueue: string, limit: number, log: PassLog): Promise<RelayReport> {
  type Action = StartOutcome | 'start-failed';
  const pass = await reconcile<{ id: string }, Action>({
    rule: 'relay-webhook-deliveries',
    lost: () => db.webhookDelivery.findMany({ where: { status: 'PENDING' }, orderBy: { createdAt: 'asc' }, take: limit, select: { id: true } }),
    settle: (row) => startDelivery(db, client, config, taskQueue, row.id),
    failed: 'start-failed',
    ids: (row) => ({ deliveryId: row.id }),
  }, log);
  return { examined: pass.examined, started: countOf(pass, 'started'), alreadyRunning: countOf(pass, 'already-running'), failedToStart: countOf(pass, 'start-failed') };
}
