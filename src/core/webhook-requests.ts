/**
 * Per-request completion webhooks: a create request may name a URL (`webhook`) for the resource it
 * creates. The URL passes the same destination rules as a registered endpoint
 * ({@link assertDestination}) and is kept with the resource in `webhook_request_targets`, keyed by
 * the resource's event source (the terminal-status trigger's event prefix, chosen by the family)
 * and its id; the trigger then writes a delivery to it as well. Its deliveries are signed with the
 * requesting user's signing secret (`whsec_…`, Standard Webhooks; created or rotated by
 * {@link rotateSigningSecret}; stored sealed, src/core/webhook-secrets.ts), so a create naming a URL
 * before the user has one is refused. A delivery of a company's resource to a per-request URL is sent
 * only while the URL's user is still a member of that company ({@link requestTargetRefusal}).
 */
import type { Prisma, PrismaClient, WebhookSigningSecret } from '@prisma/client';
import { CORE_ERRORS } from './errors';
import type { MembershipReader } from './tenancy';
import type { DestinationPolicy } from './webhook-destination';
import { assertDestination } from './webhook-endpoints';
import { signingSecretOwner, type WebhookSecretBox } from './webhook-secrets';
import { newWebhookSecret } from './webhook-signing';

/** The per-request webhook of one create: where the resource's terminal event goes, and whose secret signs it. */
export interface RequestWebhook {
  /** The resource's event source, e.g. the trigger's event prefix of its table. */
  source: string;
  /** The requesting user (owner of the deliveries and of the signing secret). */
  userId: string;
  /** The checked URL ({@link checkRequestWebhook}). */
  url: string;
}

/**
 * Checks a create's `webhook` URL before anything is written.
 * @throws DomainError 400 WEBHOOK_URL_REFUSED (see {@link assertDestination}); 409
 *   WEBHOOK_SIGNING_SECRET_MISSING when `userId` has no signing secret yet.
 */
export async function checkRequestWebhook(db: Pick<PrismaClient, 'webhookSigningSecret'>, policy: DestinationPolicy, userId: string, url: string): Promise<void> {
  await assertDestination(url, policy);
  const secret = await db.webhookSigningSecret.findUnique({ where: { userId }, select: { userId: true } });
  if (!secret) throw CORE_ERRORS.problem('WEBHOOK_SIGNING_SECRET_MISSING', 'a per-request webhook needs a signing secret: create one with POST /webhooks/signing-secret first');
}

/** Keeps `webhook` for resource `resourceId`, in the create's transaction. */
export async function recordRequestWebhook(tx: Prisma.TransactionClient, webhook: RequestWebhook, resourceId: string): Promise<void> {
  await tx.webhookRequestTarget.create({ data: { source: webhook.source, resourceId, userId: webhook.userId, url: webhook.url } });
}

/**
 * Why a delivery must not be sent to its per-request URL, or null when it may be sent (or is not a
 * per-request delivery): its event's resource belongs to `companyId` (the terminal-status trigger
 * writes it for company-scoped sources) and the user who named the URL is no longer a member of
 * that company, in any role. The reason is the text recorded with the delivery.
 */
export async function requestTargetRefusal(
  db: MembershipReader,
  delivery: { companyId: string | null; target: { userId: string } | null },
): Promise<string | null> {
  const { companyId, target } = delivery;
  if (!target || !companyId) return null;
  const member = await db.companyMember.findUnique({ where: { companyId_userId: { companyId, userId: target.userId } }, select: { role: true } });
  return member ? null : `not sent: the user who named this webhook is no longer a member of company ${companyId}`;
}

/** Removes the request webhook of resource `resourceId` of `source` (its create was undone). */
export async function removeRequestWebhook(tx: Prisma.TransactionClient, source: string, resourceId: string): Promise<void> {
  await tx.webhookRequestTarget.deleteMany({ where: { source, resourceId } });
}

/**
 * Creates `userId`'s signing secret, or rotates it: a fresh secret signs from now on and the one it
 * replaces keeps signing for `overlapMs` (at most two valid at a time). Stores both sealed under
 * `box`; returns the row with the new secret in clear (shown once) and the previous one as stored.
 */
export async function rotateSigningSecret(db: Pick<PrismaClient, 'webhookSigningSecret'>, userId: string, overlapMs: number, box: WebhookSecretBox, now = new Date()): Promise<{ row: WebhookSigningSecret; created: boolean }> {
  const owner = signingSecretOwner(userId);
  const secret = newWebhookSecret();
  const existing = await db.webhookSigningSecret.findUnique({ where: { userId } });
  if (!existing) {
    try {
      const row = await db.webhookSigningSecret.create({ data: { userId, secret: box.seal(owner, secret) } });
      return { row: { ...row, secret }, created: true };
    } catch (err) {
      // A concurrent first create won: rotate its secret instead.
      if ((err as { code?: string }).code !== 'P2002') throw err;
      return rotateSigningSecret(db, userId, overlapMs, box, now);
    }
  }
  // Compare-and-set on the secret read: of two rotations at once, the second starts over from the
  // first one's secret (which keeps signing as the previous one) instead of overwriting it.
  const done = await db.webhookSigningSecret.updateMany({
    where: { userId, secret: existing.secret },
    data: { secret: box.seal(owner, secret), previousSecret: box.sealIfClear(owner, existing.secret), previousSecretExpiresAt: new Date(now.getTime() + overlapMs) },
  });
  if (done.count === 0) return rotateSigningSecret(db, userId, overlapMs, box, now);
  const row = await db.webhookSigningSecret.findUniqueOrThrow({ where: { userId } });
  return { row: { ...row, secret }, created: false };
}
