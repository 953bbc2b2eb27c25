/**
 * Per-request completion webhooks: a create request may name a URL (`webhook`) for the resource it
 * creates. The URL passes the same destination rules as a registered endpoint
 * ({@link assertDestination}) and is kept with the resource in `webhook_request_targets`, keyed by
 * the resource's event source (the terminal-status trigger's event prefix, chosen by the family)
 * and its id; the trigger then writes a delivery to it as well. Its deliveries are signed with the
 * requesting user's signing secret (`whsec_…`, Standard Webhooks; created or rotated by
 * {@link rotateSigningSecret}; stored sealed, src/core/webhook-secrets.ts), so a create naming a URL
 * before the user has one is refused. A delivery of a company's resource to a per-request URL is sent
 * only while the URL's user is still a member of that company ({@link requestTargetRefusal}). Async
 * jobs take one target per request and job: several requests may name URLs for one job (e.g.
 * repeated submissions landing on its active job), each gets its own delivery
 * ({@link recordJobRequestWebhooks}).
 */
import type { Prisma, PrismaClient, WebhookSigningSecret } from '@prisma/client';
import { CORE_ERRORS } from './errors';
import { ASYNC_JOB_STATES } from './job-state';
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

/** Event source of async jobs' terminal events (the prefix of the `async_jobs` webhook trigger); the resource id is the job id. */
export const ASYNC_JOB_WEBHOOK_SOURCE = 'async_job';

/** A per-request webhook of async jobs: the requesting user and the checked URL (source {@link ASYNC_JOB_WEBHOOK_SOURCE}). */
export type JobRequestWebhook = Omit<RequestWebhook, 'source'>;

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
 * Keeps `webhook` for each job of `jobIds` that is still active (PENDING or PROCESSING), in the
 * request's transaction: one target per job, beside the targets other requests keep for it. The
 * jobs are locked FOR SHARE, so a concurrent terminal write either waits for this commit (and its
 * trigger then sees the target) or committed first (and the job is skipped here). Returns the ids
 * of the targets written (none: every job was terminal or absent).
 */
export async function recordJobRequestWebhooks(tx: Prisma.TransactionClient, webhook: JobRequestWebhook, jobIds: readonly string[]): Promise<string[]> {
  if (jobIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO webhook_request_targets (id, source, resource_id, user_id, url)
    SELECT gen_random_uuid(), ${ASYNC_JOB_WEBHOOK_SOURCE}, j.job_id::text, ${webhook.userId}::uuid, ${webhook.url}
    FROM (
      SELECT job_id FROM async_jobs
      WHERE job_id = ANY(${[...jobIds]}::uuid[]) AND status::text = ANY(${[...ASYNC_JOB_STATES.active]}::text[])
      ORDER BY job_id
      FOR SHARE
    ) j
    RETURNING id::text AS id`;
  return rows.map((r) => r.id);
}

/** Removes the request targets of async jobs among `jobIds` that no longer exist (their create was undone). */
export async function removeOrphanJobRequestWebhooks(tx: Prisma.TransactionClient, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await tx.$executeRaw`
    DELETE FROM webhook_request_targets t
    WHERE t.source = ${ASYNC_JOB_WEBHOOK_SOURCE} AND t.resource_id = ANY(${[...jobIds]}::text[])
      AND NOT EXISTS (SELECT 1 FROM async_jobs j WHERE j.job_id::text = t.resource_id)`;
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
