/**
 * Webhook endpoints and deliveries as their owners see them. An endpoint belongs to a user (the
 * terminal events of that user's jobs) or to a company (its resources' terminal events; managed by
 * the company's OWNERs only). Anyone else learns nothing: 404, never 403, for a resource of
 * another tenant; a member without the role gets 403 on create.
 */
import { randomUUID } from 'node:crypto';
import type { CompanyRole, Prisma, PrismaClient, WebhookDelivery, WebhookEndpoint } from '@prisma/client';
import { CORE_ERRORS, notFound } from './errors';
import { checkDestination, DestinationRefusedError, type DestinationPolicy } from './webhook-destination';
import type { WebhookSecretBox } from './webhook-secrets';
import { newWebhookSecret } from './webhook-signing';

/** Roles that may manage a company's endpoints. */
export const WEBHOOK_COMPANY_ROLES: readonly CompanyRole[] = ['OWNER'];

/** Workflow ID of delivery `deliveryId`'s workflow. */
export function webhookDeliveryWorkflowId(deliveryId: string): string {
  return `webhook-delivery:${deliveryId}`;
}

/** The `where` of the endpoints `userId` may see and manage. */
export async function visibleEndpoints(db: PrismaClient, userId: string): Promise<Prisma.WebhookEndpointWhereInput> {
  const companies = await db.companyMember.findMany({ where: { userId, role: { in: [...WEBHOOK_COMPANY_ROLES] } }, select: { companyId: true } });
  return { OR: [{ userId, companyId: null }, { companyId: { in: companies.map((c) => c.companyId) } }] };
}

/**
 * Registers an endpoint for `userId` (or for `companyId`, which needs an OWNER): checks `url`
 * ({@link checkDestination}), stores the secret sealed by `box` and returns the row with its secret
 * in clear (shown once).
 * @throws DomainError 400 WEBHOOK_URL_REFUSED; 404 NOT_FOUND (not a member of `companyId`); 403 FORBIDDEN (a member without the role).
 */
export async function createEndpoint(
  db: PrismaClient,
  policy: DestinationPolicy,
  input: { userId: string; url: string; companyId?: string; description?: string },
  box: WebhookSecretBox,
): Promise<WebhookEndpoint> {
  if (input.companyId) {
    const member = await db.companyMember.findUnique({ where: { companyId_userId: { companyId: input.companyId, userId: input.userId } } });
    if (!member) throw notFound('company');
    if (!WEBHOOK_COMPANY_ROLES.includes(member.role)) throw CORE_ERRORS.problem('FORBIDDEN', `company webhooks need the role ${WEBHOOK_COMPANY_ROLES.join(' or ')}`);
  }
  await assertDestination(input.url, policy);
  const id = randomUUID();
  const secret = newWebhookSecret();
  const row = await db.webhookEndpoint.create({
    data: { id, userId: input.userId, companyId: input.companyId ?? null, url: input.url, description: input.description ?? null, secret: box.seal(id, secret) },
  });
  return { ...row, secret };
}

/** @throws DomainError 400 WEBHOOK_URL_REFUSED when `url` fails {@link checkDestination}. */
export async function assertDestination(url: string, policy: DestinationPolicy): Promise<void> {
  try {
    await checkDestination(url, policy);
  } catch (err) {
    if (err instanceof DestinationRefusedError) throw CORE_ERRORS.problem('WEBHOOK_URL_REFUSED', err.message);
    throw err;
  }
}

/** Endpoint `id` if `userId` may see it. @throws DomainError 404 NOT_FOUND otherwise. */
export async function endpointFor(db: PrismaClient, userId: string, id: string): Promise<WebhookEndpoint> {
  const row = await db.webhookEndpoint.findFirst({ where: { id, ...(await visibleEndpoints(db, userId)) } });
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/**
 * Rotates endpoint `id`'s secret: a fresh secret signs from now on, and the one it replaces keeps
 * signing for `overlapMs` (so at most two are valid at a time). Both are stored sealed by `box`
 * (the previous one is kept as stored, or sealed now if it was a clear legacy value). Returns the
 * row with the new secret in clear (the previous one stays sealed).
 * @throws DomainError 404 NOT_FOUND as {@link endpointFor}.
 */
export async function rotateSecret(
  db: PrismaClient, userId: string, id: string, overlapMs: number, box: WebhookSecretBox, now = new Date(),
): Promise<WebhookEndpoint> {
  const row = await endpointFor(db, userId, id);
  const secret = newWebhookSecret();
  const previous = box.sealIfClear(row.id, row.secret);
  const updated = await db.webhookEndpoint.update({
    where: { id: row.id },
    data: { secret: box.seal(row.id, secret), previousSecret: previous, previousSecretExpiresAt: new Date(now.getTime() + overlapMs) },
  });
  return { ...updated, secret };
}

/**
 * The secrets that sign a delivery of `endpoint` at `now`: the current one, and the previous one
 * during its overlap, as stored (open them with src/core/webhook-secrets.ts `openEndpoint` first).
 */
export function signingSecrets(endpoint: Pick<WebhookEndpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now = new Date()): string[] {
  const prev = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now ? [endpoint.previousSecret] : [];
  return [endpoint.secret, ...prev];
}

/** The `where` of the deliveries `userId` may see: to the endpoints they manage, and to their own per-request URLs. */
export async function visibleDeliveries(db: PrismaClient, userId: string): Promise<Prisma.WebhookDeliveryWhereInput> {
  return { OR: [{ endpoint: await visibleEndpoints(db, userId) }, { target: { userId } }] };
}

/** Delivery `id` if `userId` may see it ({@link visibleDeliveries}). @throws DomainError 404 NOT_FOUND otherwise. */
export async function deliveryFor(db: PrismaClient, userId: string, id: string): Promise<WebhookDelivery & { target: { url: string } | null }> {
  const row = await db.webhookDelivery.findFirst({ where: { id, ...(await visibleDeliveries(db, userId)) }, include: { target: { select: { url: true } } } });
  if (!row) throw notFound('webhook delivery');
  return row;
}

/** A new PENDING delivery of delivery `id`'s event (same event id, payload and company) to the same endpoint or per-request URL. */
export async function redeliver(db: PrismaClient, userId: string, id: string): Promise<WebhookDelivery & { target: { url: string } | null }> {
  const row = await deliveryFor(db, userId, id);
  return db.webhookDelivery.create({
    include: { target: { select: { url: true } } },
    data: { endpointId: row.endpointId, targetId: row.targetId, companyId: row.companyId, eventId: row.eventId, eventType: row.eventType, payload: row.payload as Prisma.InputJsonValue, redeliveryOf: row.id },
  });
}
