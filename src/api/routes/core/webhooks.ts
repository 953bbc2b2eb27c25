/**
 * Completion webhooks' routes: endpoints (register, list, read, delete, rotate the secret), their
 * deliveries (list, read with attempts) and redelivery; the caller's signing secret of per-request
 * webhook URLs and the deliveries to those URLs. Bearer auth; an endpoint of another user, or of a
 * company where the caller is not an OWNER, and another user's delivery answer 404.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookSigningSecret } from '@prisma/client';
import { z } from 'zod';
import { startAfterCommit } from '../../../core/after-commit';
import { taskQueues } from '../../../core/contracts';
import {
  createEndpoint, deliveryFor, endpointFor, redeliver, rotateSecret, signingSecrets, visibleEndpoints,
} from '../../../core/webhook-endpoints';
import { webhookSecretBoxFromConfig } from '../../../core/webhook-secrets';
import { rotateSigningSecret } from '../../../core/webhook-requests';
import { startDelivery } from '../../../core/webhook-start';
import type { ApiDeps } from '../../deps';
import { afterPosition, decodeCursor, NEWEST_FIRST, pageOf, PageQuery } from '../../pagination';
import { notFound } from '../../../core/errors';
import { ProblemSchema } from '../../problem';
import { Uuid } from '../../schemas';

const EndpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  companyId: z.uuid().nullable().describe('null: the caller\'s own jobs; else the company\'s resources'),
  description: z.string().nullable(),
  secretRotationEndsAt: z.string().nullable().describe('while set (ISO time), the previous secret still signs too'),
  createdAt: z.string(),
}).meta({ id: 'WebhookEndpoint' });

const EndpointWithSecretSchema = EndpointSchema.extend({
  secret: z.string().describe('`whsec_…` (Standard Webhooks); shown only in this answer'),
}).meta({ id: 'WebhookEndpointWithSecret' });

const AttemptSchema = z.object({
  number: z.number().int(),
  statusCode: z.number().int().nullable().describe('null: no HTTP answer (timeout, connection error, refused destination)'),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  createdAt: z.string(),
}).meta({ id: 'WebhookAttempt' });

const DeliverySchema = z.object({
  id: z.uuid(),
  endpointId: z.uuid().nullable().describe('null: a delivery to the per-request `webhook` URL of the resource\'s create (see `requestUrl`)'),
  requestUrl: z.string().nullable().describe('the per-request `webhook` URL this delivery goes to (null: to the endpoint `endpointId`)'),
  eventId: z.uuid().describe('the `webhook-id` header (the same for a redelivery)'),
  eventType: z.string().describe('`<source>.<status>`: `async_job.completed` / `.failed`, `ai_run.succeeded` / `.failed`, ' +
    '`portal_link_job.succeeded` / `.failed`, `study_memo_card_job.completed` / `.failed` / `.skipped`'),
  status: z.enum(['PENDING', 'DELIVERING', 'SUCCEEDED', 'FAILED']),
  attemptCount: z.number().int(),
  lastError: z.string().nullable(),
  redeliveryOf: z.uuid().nullable(),
  payload: z.unknown().describe('the POSTed JSON: `{ type, timestamp, data }`'),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
}).meta({ id: 'WebhookDelivery' });

const DeliveryWithAttemptsSchema = DeliverySchema.extend({ attempts: z.array(AttemptSchema) }).meta({ id: 'WebhookDeliveryWithAttempts' });

const CreateBody = z.strictObject({
  url: z.string().min(1).max(2048).describe('https URL (http and private addresses only with WEBHOOK_ALLOW_PRIVATE_URLS, dev/test)'),
  companyId: z.uuid().optional().describe('register for a company (needs OWNER); absent: for the caller\'s own jobs'),
  description: z.string().max(500).optional(),
}).meta({ examples: [{ url: 'https://hooks.example.com/durable-jobs', description: 'job completions' }] });

function endpointView(e: WebhookEndpoint, now = new Date()) {
  const rotating = signingSecrets(e, now).length > 1 ? e.previousSecretExpiresAt : null;
  return {
    id: e.id, url: e.url, companyId: e.companyId, description: e.description,
    secretRotationEndsAt: rotating ? rotating.toISOString() : null, createdAt: e.createdAt.toISOString(),
  };
}

const SigningSecretSchema = z.object({
  secretRotationEndsAt: z.string().nullable().describe('while set (ISO time), the previous secret still signs too'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: 'WebhookSigningSecret' });

const SigningSecretWithSecretSchema = SigningSecretSchema.extend({
  secret: z.string().describe('`whsec_…` (Standard Webhooks); shown only in this answer'),
}).meta({ id: 'WebhookSigningSecretWithSecret' });

function signingSecretView(s: WebhookSigningSecret, now = new Date()) {
  const rotating = signingSecrets(s, now).length > 1 ? s.previousSecretExpiresAt : null;
  return { secretRotationEndsAt: rotating ? rotating.toISOString() : null, createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString() };
}

function deliveryView(d: WebhookDelivery & { target?: { url: string } | null }) {
  return {
    id: d.id, endpointId: d.endpointId, requestUrl: d.target?.url ?? null, eventId: d.eventId, eventType: d.eventType, status: d.status, attemptCount: d.attemptCount,
    lastError: d.lastError, redeliveryOf: d.redeliveryOf, payload: d.payload, createdAt: d.createdAt.toISOString(), finishedAt: d.finishedAt?.toISOString() ?? null,
  };
}

function attemptView(a: WebhookAttempt) {
  return { number: a.number, statusCode: a.statusCode, durationMs: a.durationMs, error: a.error, createdAt: a.createdAt.toISOString() };
}

const ENDPOINTS = 'webhook-endpoints';
const DELIVERIES = 'webhook-deliveries';
const REQUEST_DELIVERIES = 'webhook-request-deliveries';
const IdParams = z.object({ id: Uuid });

/** Registers the webhook routes. */
export const webhookRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  const policy = { allowPrivate: deps.config.webhooks.allowPrivateUrls };
  const secrets = webhookSecretBoxFromConfig(deps.config);
  const tags = ['webhooks'];

  app.post('/webhooks/endpoints', {
    schema: {
      tags, summary: 'Register a completion webhook endpoint',
      description: 'Every job (user scope) or company resource (company scope) that reaches a terminal status is POSTed to the URL, ' +
        'signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The secret is in this answer only. ' +
        '400 WEBHOOK_URL_REFUSED: not https, credentials in the URL, or a host that resolves to a private, loopback or link-local address.',
      body: CreateBody,
      response: { 201: EndpointWithSecretSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (req, reply) => {
    const row = await createEndpoint(deps.db, policy, { userId: req.userId, ...req.body }, secrets);
    reply.code(201).header('location', `/webhooks/endpoints/${row.id}`);
    return { ...endpointView(row), secret: row.secret };
  });

  app.get('/webhooks/endpoints', {
    schema: {
      tags, summary: 'List the webhook endpoints the caller manages (newest first)',
      querystring: PageQuery,
      response: { 200: z.object({ items: z.array(EndpointSchema), nextCursor: z.string().nullable() }), 400: ProblemSchema, 401: ProblemSchema },
    },
  }, async (req) => {
    const pos = req.query.cursor === undefined ? undefined : decodeCursor(ENDPOINTS, req.query.cursor);
    const rows = await deps.db.webhookEndpoint.findMany({
      where: { AND: [await visibleEndpoints(deps.db, req.userId), afterPosition(pos)] }, orderBy: NEWEST_FIRST, take: req.query.limit + 1,
    });
    const page = pageOf(ENDPOINTS, rows, req.query.limit);
    return { items: page.items.map((e) => endpointView(e)), nextCursor: page.nextCursor };
  });

  app.get('/webhooks/endpoints/:id', {
    schema: { tags, summary: 'Read a webhook endpoint', params: IdParams, response: { 200: EndpointSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema } },
  }, async (req) => endpointView(await endpointFor(deps.db, req.userId, req.params.id)));

  app.delete('/webhooks/endpoints/:id', {
    schema: {
      tags, summary: 'Delete a webhook endpoint and its deliveries (deliveries in flight stop)', params: IdParams,
      response: { 204: z.null().describe('deleted'), 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (req, reply) => {
    const row = await endpointFor(deps.db, req.userId, req.params.id);
    await deps.db.webhookEndpoint.deleteMany({ where: { id: row.id } });
    return reply.code(204).send(null);
  });

  app.post('/webhooks/endpoints/:id/rotate-secret', {
    schema: {
      tags, summary: 'Rotate the signing secret',
      description: 'A fresh secret signs from now on; the one it replaces keeps signing too for WEBHOOK_SECRET_OVERLAP_HOURS, so ' +
        'during the overlap `webhook-signature` carries two `v1,` signatures. Rotating again during an overlap ends the older one.',
      params: IdParams,
      response: { 200: EndpointWithSecretSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (req) => {
    const row = await rotateSecret(deps.db, req.userId, req.params.id, deps.config.webhooks.secretOverlapMs, secrets);
    return { ...endpointView(row), secret: row.secret };
  });

  app.get('/webhooks/endpoints/:id/deliveries', {
    schema: {
      tags, summary: 'List an endpoint\'s deliveries (newest first)', params: IdParams, querystring: PageQuery,
      response: { 200: z.object({ items: z.array(DeliverySchema), nextCursor: z.string().nullable() }), 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (req) => {
    const endpoint = await endpointFor(deps.db, req.userId, req.params.id);
    const pos = req.query.cursor === undefined ? undefined : decodeCursor(DELIVERIES, req.query.cursor);
    const rows = await deps.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id, ...afterPosition(pos) }, orderBy: NEWEST_FIRST, take: req.query.limit + 1 });
    const page = pageOf(DELIVERIES, rows, req.query.limit);
    return { items: page.items.map(deliveryView), nextCursor: page.nextCursor };
  });

  app.post('/webhooks/signing-secret', {
    schema: {
      tags, summary: 'Create or rotate the signing secret of per-request webhook URLs',
      description: 'Every create that takes a `webhook` URL (a per-request completion webhook) signs its deliveries with the caller\'s ' +
        'signing secret, per Standard Webhooks. The first call creates it (201); a later call rotates it (200): a fresh secret signs ' +
        'from now on and the one it replaces keeps signing too for WEBHOOK_SECRET_OVERLAP_HOURS (two `v1,` signatures). The secret ' +
        'is in this answer only.',
      response: { 200: SigningSecretWithSecretSchema, 201: SigningSecretWithSecretSchema, 401: ProblemSchema },
    },
  }, async (req, reply) => {
    const { row, created } = await rotateSigningSecret(deps.db, req.userId, deps.config.webhooks.secretOverlapMs, secrets);
    reply.code(created ? 201 : 200).header('location', '/webhooks/signing-secret');
    return { ...signingSecretView(row), secret: row.secret };
  });

  app.get('/webhooks/signing-secret', {
    schema: {
      tags, summary: 'Read the signing secret\'s state (never the secret)',
      response: { 200: SigningSecretSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (req) => {
    const row = await deps.db.webhookSigningSecret.findUnique({ where: { userId: req.userId } });
    if (!row) throw notFound('webhook signing secret');
    return signingSecretView(row);
  });

  app.get('/webhooks/deliveries', {
    schema: {
      tags, summary: 'List the deliveries to the caller\'s per-request webhook URLs (newest first)', querystring: PageQuery,
      response: { 200: z.object({ items: z.array(DeliverySchema), nextCursor: z.string().nullable() }), 400: ProblemSchema, 401: ProblemSchema },
    },
  }, async (req) => {
    const pos = req.query.cursor === undefined ? undefined : decodeCursor(REQUEST_DELIVERIES, req.query.cursor);
    const rows = await deps.db.webhookDelivery.findMany({
      where: { target: { userId: req.userId }, ...afterPosition(pos) }, include: { target: { select: { url: true } } }, orderBy: NEWEST_FIRST, take: req.query.limit + 1,
    });
    const page = pageOf(REQUEST_DELIVERIES, rows, req.query.limit);
    return { items: page.items.map(deliveryView), nextCursor: page.nextCursor };
  });

  app.get('/webhooks/deliveries/:id', {
    schema: { tags, summary: 'Read a delivery with its attempts', params: IdParams, response: { 200: DeliveryWithAttemptsSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema } },
  }, async (req) => {
    const row = await deliveryFor(deps.db, req.userId, req.params.id);
    const attempts = await deps.db.webhookAttempt.findMany({ where: { deliveryId: row.id }, orderBy: { number: 'asc' } });
    return { ...deliveryView(row), attempts: attempts.map(attemptView) };
  });

  app.post('/webhooks/deliveries/:id/redeliver', {
    schema: {
      tags, summary: 'Deliver the same event again (a new delivery, same `webhook-id` and payload)', params: IdParams,
      response: { 202: DeliverySchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (req, reply) => {
    const row = await redeliver(deps.db, req.userId, req.params.id);
    const client = deps.temporal;
    if (client) {
      const queue = taskQueues(deps.config.temporal.taskQueuePrefix).jobs;
      await startAfterCommit(req.log, { deliveryId: row.id }, () => startDelivery(deps.db, client, deps.config, queue, row.id));
    }
    reply.code(202).header('location', `/webhooks/deliveries/${row.id}`);
    return deliveryView((await deps.db.webhookDelivery.findUnique({ where: { id: row.id }, include: { target: { select: { url: true } } } })) ?? row);
  });
};
