/** zod schemas shared by routes; they drive validation, serialisation and the OpenAPI document. */
import { z } from 'zod';
import { JobType } from '@prisma/client';
import { JOB_RESULT_CODES, JOB_STATUSES } from '../core/contracts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_HEADER_MAX_LENGTH, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from '../core/idempotency';

/** A UUID path parameter; anything else is a 400 VALIDATION_FAILED, never a database error. */
export const Uuid = z.uuid({ message: 'must be a UUID' });

/** SAN-5 job status document. */
export const AsyncJobSchema = z
  .object({
    jobId: z.uuid(),
    jobType: z.enum(JobType),
    targetId: z.uuid(),
    status: z.enum(JOB_STATUSES),
    errorMessage: z.string().nullable(),
    resultCode: z
      .enum(JOB_RESULT_CODES)
      .nullable()
      .describe('why a COMPLETED job applied no result: SUPERSEDED when its target was changed (by hand) after the job was enqueued, so nothing was written; null otherwise'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'AsyncJob' });

/** The {@link IDEMPOTENCY_KEY_PATTERN} in words. */
const IDEMPOTENCY_KEY_RULE = `1-${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (0x21-0x7E), optionally in double quotes (then without " or \\ inside)`;

/**
 * The request headers of a route that reads `Idempotency-Key` (AR-7, PO-1; other headers pass
 * through). The document states the parser's syntax (`pattern`, `maxLength`) and, with `required`,
 * that the route needs the header; validation is left to the route's parser
 * (src/core/idempotency.ts), so its stable codes answer: a missing required key → 400
 * IDEMPOTENCY_KEY_MISSING, a malformed one → 400 IDEMPOTENCY_KEY_INVALID.
 */
export function idempotencyKeyHeaders(opts: { required: boolean; description: string; example?: string }) {
  const header = z
    .string()
    .optional()
    .meta({
      description: `${opts.description} Syntax: ${IDEMPOTENCY_KEY_RULE}.`,
      pattern: IDEMPOTENCY_KEY_PATTERN,
      maxLength: IDEMPOTENCY_KEY_HEADER_MAX_LENGTH,
      ...(opts.example ? { example: opts.example } : {}),
    });
  const headers = z.looseObject({ [IDEMPOTENCY_KEY_HEADER]: header });
  return opts.required ? headers.meta({ required: [IDEMPOTENCY_KEY_HEADER] }) : headers;
}

/** What every per-request `webhook` field says of its URL, its signing and its refusals (OpenAPI text). */
export const REQUEST_WEBHOOK_RULES =
  'per-request completion webhook: an https URL (public address, no credentials; http and private addresses only with ' +
  'WEBHOOK_ALLOW_PRIVATE_URLS, dev/test), signed per Standard Webhooks with your signing secret (POST /webhooks/signing-secret). ' +
  '400 WEBHOOK_URL_REFUSED; 409 WEBHOOK_SIGNING_SECRET_MISSING without a secret';

/**
 * The optional `webhook` field of a create that makes a pollable resource: where its terminal event
 * is POSTed (a per-request completion webhook, signed with the caller's signing secret). Checked by
 * the endpoint rules: 400 WEBHOOK_URL_REFUSED; 409 WEBHOOK_SIGNING_SECRET_MISSING without a secret.
 * Part of the request's Idempotency-Key fingerprint where the create takes one. A create whose
 * resource differs from "one resource, one terminal event" restates the delivery rule with
 * `.describe(`${REQUEST_WEBHOOK_RULES}. …`)` (the format and example stay).
 */
export const RequestWebhookField = z
  .string()
  .min(1)
  .max(2048)
  .optional()
  // `format: uri` documents the shape; the destination rules decide (WEBHOOK_URL_REFUSED, not VALIDATION_FAILED).
  .meta({ format: 'uri', example: 'https://hooks.example.com/durable-jobs' })
  .describe(`${REQUEST_WEBHOOK_RULES}. It receives the terminal event of the resource this request creates`);
