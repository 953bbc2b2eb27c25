/**
 * Activities of completion webhooks: one delivery attempt (`jobs` queue) and the relay pass
 * (`maintenance` queue). An attempt re-checks the destination (DNS rebinding), POSTs the signed
 * event and records the attempt and the delivery's state in one transaction. A per-request delivery
 * of a company's resource whose requester has left the company is not sent: the attempt records the
 * reason and the delivery is FAILED at once, not retried.
 */
import type { Client } from '@temporalio/client';
import type { Prisma, PrismaClient } from '@prisma/client';
import type { CoreConfig } from '../../config';
import { checkDestination, DestinationRefusedError } from '../../core/webhook-destination';
import { signingSecrets } from '../../core/webhook-endpoints';
import { openEndpoint, openSigningSecret, webhookSecretBoxFromConfig, WebhookSecretError } from '../../core/webhook-secrets';
import { postWebhook, type PostOutcome } from '../../core/webhook-post';
import { webhookHeaders } from '../../core/webhook-signing';
import { requestTargetRefusal } from '../../core/webhook-requests';
import { relayDeliveries, type RelayReport } from '../../core/webhook-start';
import { storableText } from '../../core/cause-chain';
import { log as activityLog } from '@temporalio/activity';

/**
 * What an attempt left: delivered, to be retried, or nothing more to do (the delivery or its endpoint
 * is gone, it is already final, or it was refused and recorded FAILED).
 */
export type AttemptResult = 'succeeded' | 'retry' | 'gone';

/** Deps of {@link createWebhookActivities}. */
export interface WebhookActivityDeps {
  config: Pick<CoreConfig, 'webhooks'>;
  db: PrismaClient;
  client?: Client;
  /** The `jobs` task queue (delivery workflows run there). */
  jobsTaskQueue?: string;
}

/** Builds the webhook activities. */
export function createWebhookActivities({ config, db, client, jobsTaskQueue }: WebhookActivityDeps) {
  const secrets = webhookSecretBoxFromConfig(config);
  return {
    /** One POST of delivery `deliveryId` (see the module comment). */
    async attemptWebhookDelivery(args: { deliveryId: string }): Promise<AttemptResult> {
      const delivery = await db.webhookDelivery.findUnique({
        where: { id: args.deliveryId },
        include: { endpoint: true, target: { include: { user: { select: { webhookSigningSecret: true } } } } },
      });
      if (!delivery || delivery.status === 'SUCCEEDED' || delivery.status === 'FAILED') return 'gone';
      // An endpoint signs with its own secret; a per-request URL with its user's signing secret.
      const endpoint = delivery.endpoint;
      const signingSecret = delivery.target?.user.webhookSigningSecret;
      const url = endpoint?.url ?? delivery.target?.url;
      if ((!endpoint && !signingSecret) || !url) return 'gone';
      const body = JSON.stringify(delivery.payload);
      const now = new Date();
      const send = async (): Promise<PostOutcome> => {
        try {
          const signer = endpoint ? openEndpoint(secrets, endpoint) : openSigningSecret(secrets, signingSecret!);
          const dest = await checkDestination(url, { allowPrivate: config.webhooks.allowPrivateUrls });
          const headers = webhookHeaders(signingSecrets(signer, now), delivery.eventId, Math.floor(now.getTime() / 1000), body);
          return await postWebhook(dest, headers, body, config.webhooks.requestTimeoutMs);
        } catch (err) {
          // A refused destination or a secret the key ring cannot open: recorded as a failed attempt
          // (nothing was sent) and retried within the budget, so a fixed configuration recovers.
          if (!(err instanceof DestinationRefusedError) && !(err instanceof WebhookSecretError)) throw err;
          return { statusCode: null, durationMs: 0, error: err.message, ok: false };
        }
      };
      // Membership first: a refused delivery is recorded once and final, whatever its secret or URL.
      const refusal = await requestTargetRefusal(db, delivery);
      const outcome: PostOutcome = refusal ? { statusCode: null, durationMs: 0, error: refusal, ok: false } : await send();
      const error = outcome.error === null ? null : storableText(outcome.error);
      await db.$transaction(async (tx: Prisma.TransactionClient) => {
        const row = await tx.webhookDelivery.update({ where: { id: delivery.id }, data: { attemptCount: { increment: 1 } }, select: { attemptCount: true } });
        await tx.webhookAttempt.create({ data: { deliveryId: delivery.id, number: row.attemptCount, statusCode: outcome.statusCode, durationMs: outcome.durationMs, error } });
        await tx.webhookDelivery.update({
          where: { id: delivery.id },
          data: outcome.ok ? { status: 'SUCCEEDED', lastError: null, finishedAt: new Date() }
            : refusal ? { status: 'FAILED', lastError: error, finishedAt: new Date() }
            : { status: 'DELIVERING', lastError: error },
        });
      }).catch((err: unknown) => {
        // The delivery (or its endpoint) was deleted meanwhile: nothing left to record.
        if ((err as { code?: string }).code === 'P2025') return;
        throw err;
      });
      return outcome.ok ? 'succeeded' : refusal ? 'gone' : 'retry';
    },

    /** Delivery `deliveryId` ran out of its retry budget: FAILED (unless it is already final). */
    async failWebhookDelivery(args: { deliveryId: string }): Promise<void> {
      await db.webhookDelivery.updateMany({ where: { id: args.deliveryId, status: { in: ['PENDING', 'DELIVERING'] } }, data: { status: 'FAILED', finishedAt: new Date() } });
    },

    /** The outbox relay: starts the workflows of PENDING deliveries ({@link relayDeliveries}). */
    async relayWebhookDeliveries(args: { limit: number }): Promise<RelayReport> {
      if (!client || !jobsTaskQueue) throw new Error('relayWebhookDeliveries needs a Temporal client and the jobs task queue');
      return relayDeliveries(db, client, config, jobsTaskQueue, args.limit, activityLog);
    },
  };
}

/** The webhook activities' interface (what workflows proxy). */
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
