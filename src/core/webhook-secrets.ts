/**
 * Endpoint secrets at rest: `webhook_endpoints.secret` and `.previous_secret` hold the token box's
 * sealed form (`v1.<kid>.<iv>.<tag>.<data>`, AES-256-GCM under the WEBHOOK_SECRET_KEYS key ring,
 * src/crypto/token-box.ts), the endpoint id bound as additional data, so a sealed secret opens only
 * for its own endpoint. A user's signing secret of per-request webhooks (`webhook_signing_secrets`)
 * is sealed the same way, bound to `signing-secret:<userId>` ({@link signingSecretOwner}), which no
 * endpoint id can equal. A legacy clear `whsec_…` value is still read as it is; the maintenance
 * worker seals those (and re-seals values under a non-active key) once at start-up
 * ({@link sealStoredSecrets}).
 */
import type { PrismaClient, WebhookEndpoint, WebhookSigningSecret } from '@prisma/client';
import type { CoreConfig } from '../config';
import { createTokenBox, parseKeyRing, TokenBoxError, type TokenBox } from '../crypto/token-box';

const LEGACY_PREFIX = 'whsec_';

/** Raised when a stored secret cannot be opened (retired key, another endpoint's value, tampering). */
export class WebhookSecretError extends Error {
  override readonly name = 'WebhookSecretError';
}

/** Seals and opens endpoint secrets (see the module comment). */
export interface WebhookSecretBox {
  /** The stored form of `secret` (`whsec_…`) for endpoint `endpointId`. */
  seal(endpointId: string, secret: string): string;
  /** The clear secret of a stored value. @throws WebhookSecretError naming the endpoint and the key id. */
  open(endpointId: string, stored: string): string;
  /** True when `stored` is clear or sealed under a key other than the active one. */
  needsSealing(stored: string): boolean;
  /** `stored` as it is when sealed, else (a clear legacy value) sealed now; never opens anything. */
  sealIfClear(endpointId: string, stored: string): string;
}

const contextOf = (endpointId: string) => `webhook-endpoint-secret:${endpointId}`;
const keyIdOf = (stored: string) => stored.split('.')[1] ?? '';

/** The secret box over the token box `box`. */
export function webhookSecretBox(box: TokenBox): WebhookSecretBox {
  return {
    seal: (endpointId, secret) => box.seal(secret, contextOf(endpointId)).ciphertext,
    open(endpointId, stored) {
      if (stored.startsWith(LEGACY_PREFIX)) return stored;
      try {
        return box.open({ keyId: keyIdOf(stored), ciphertext: stored }, contextOf(endpointId));
      } catch (err) {
        if (!(err instanceof TokenBoxError)) throw err;
        throw new WebhookSecretError(`webhook endpoint ${endpointId}: stored secret cannot be opened (${err.message}); check WEBHOOK_SECRET_KEYS`);
      }
    },
    needsSealing: (stored) => stored.startsWith(LEGACY_PREFIX) || box.needsRotation({ keyId: keyIdOf(stored), ciphertext: stored }),
    sealIfClear: (endpointId, stored) => (stored.startsWith(LEGACY_PREFIX) ? box.seal(stored, contextOf(endpointId)).ciphertext : stored),
  };
}

/** The secret box configured by WEBHOOK_SECRET_KEYS / WEBHOOK_SECRET_ACTIVE_KEY_ID (validated at config load). */
export function webhookSecretBoxFromConfig(config: Pick<CoreConfig, 'webhooks'>): WebhookSecretBox {
  const spec = config.webhooks.secretKeys;
  if (!spec) throw new WebhookSecretError('WEBHOOK_SECRET_KEYS is not configured');
  return webhookSecretBox(createTokenBox(parseKeyRing(spec, config.webhooks.secretActiveKeyId)));
}

/** `endpoint` with its secrets opened (what signing needs). @throws WebhookSecretError as {@link WebhookSecretBox.open}. */
export function openEndpoint<E extends Pick<WebhookEndpoint, 'id' | 'secret' | 'previousSecret'>>(box: WebhookSecretBox, endpoint: E): E {
  return {
    ...endpoint,
    secret: box.open(endpoint.id, endpoint.secret),
    previousSecret: endpoint.previousSecret === null ? null : box.open(endpoint.id, endpoint.previousSecret),
  };
}

const openPrevious = (v: string | null, seal: (v: string) => string): string | null => (v === null ? null : seal(v));

/** The owner id a user's signing secret is sealed under (never a UUID, so never an endpoint's id). */
export function signingSecretOwner(userId: string): string {
  return `signing-secret:${userId}`;
}

/** A user's signing secret row with its secrets opened. @throws WebhookSecretError as {@link WebhookSecretBox.open}. */
export function openSigningSecret<S extends Pick<WebhookSigningSecret, 'userId' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>>(box: WebhookSecretBox, row: S): S {
  const owner = signingSecretOwner(row.userId);
  return { ...row, secret: box.open(owner, row.secret), previousSecret: row.previousSecret === null ? null : box.open(owner, row.previousSecret) };
}

/**
 * Seals every stored secret that {@link WebhookSecretBox.needsSealing} (clear legacy values, values
 * under a non-active key), each row by a compare-and-set on its old values so a concurrent rotation
 * wins. Returns how many rows were rewritten. A value that cannot be opened is left as it is and
 * counted in `unreadable` (its deliveries record the error).
 */
export async function sealStoredSecrets(db: PrismaClient, box: WebhookSecretBox): Promise<{ sealed: number; unreadable: number }> {
  let sealed = 0;
  let unreadable = 0;
  let after: string | undefined;
  for (;;) {
    const rows = await db.webhookEndpoint.findMany({
      where: after ? { id: { gt: after } } : {}, orderBy: { id: 'asc' }, take: 500, select: { id: true, secret: true, previousSecret: true },
    });
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      if (!box.needsSealing(row.secret) && (row.previousSecret === null || !box.needsSealing(row.previousSecret))) continue;
      let open: typeof row;
      try {
        open = openEndpoint(box, row);
      } catch (err) {
        if (!(err instanceof WebhookSecretError)) throw err;
        unreadable += 1;
        continue;
      }
      const done = await db.webhookEndpoint.updateMany({
        where: { id: row.id, secret: row.secret, previousSecret: row.previousSecret },
        data: { secret: box.seal(row.id, open.secret), previousSecret: open.previousSecret === null ? null : box.seal(row.id, open.previousSecret) },
      });
      sealed += done.count;
    }
  }
  // Users' signing secrets: the same compare-and-set, sealed to their owner id.
  let afterUser: string | undefined;
  for (;;) {
    const rows = await db.webhookSigningSecret.findMany({
      where: afterUser ? { userId: { gt: afterUser } } : {}, orderBy: { userId: 'asc' }, take: 500, select: { userId: true, secret: true, previousSecret: true, previousSecretExpiresAt: true },
    });
    if (rows.length === 0) return { sealed, unreadable };
    afterUser = rows[rows.length - 1]!.userId;
    for (const row of rows) {
      const stale = (v: string | null) => v !== null && box.needsSealing(v);
      if (!stale(row.secret) && !stale(row.previousSecret)) continue;
      let open: typeof row;
      try {
        open = openSigningSecret(box, row);
      } catch (err) {
        if (!(err instanceof WebhookSecretError)) throw err;
        unreadable += 1;
        continue;
      }
      const owner = signingSecretOwner(row.userId);
      const done = await db.webhookSigningSecret.updateMany({
        where: { userId: row.userId, secret: row.secret, previousSecret: row.previousSecret },
        data: { secret: box.seal(owner, open.secret), previousSecret: openPrevious(open.previousSecret, (p) => box.seal(owner, p)) },
      });
      sealed += done.count;
    }
  }
}
