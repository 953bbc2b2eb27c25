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
  const endpoints = await resealAll(box, {
    page: (after) => db.webhookEndpoint.findMany({ where: after ? { id: { gt: after } } : {}, orderBy: { id: 'asc' }, take: 500, select: { id: true, secret: true, previousSecret: true } })
      .then((rows) => rows.map((r) => ({ key: r.id, owner: r.id, secret: r.secret, previousSecret: r.previousSecret }))),
    update: (row, data) => db.webhookEndpoint.updateMany({ where: { id: row.key, secret: row.secret, previousSecret: row.previousSecret }, data }),
  });
  const signing = await resealAll(box, {
    page: (after) => db.webhookSigningSecret.findMany({ where: after ? { userId: { gt: after } } : {}, orderBy: { userId: 'asc' }, take: 500, select: { userId: true, secret: true, previousSecret: true } })
      .then((rows) => rows.map((r) => ({ key: r.userId, owner: signingSecretOwner(r.userId), secret: r.secret, previousSecret: r.previousSecret }))),
    update: (row, data) => db.webhookSigningSecret.updateMany({ where: { userId: row.key, secret: row.secret, previousSecret: row.previousSecret }, data }),
  });
  return { sealed: endpoints.sealed + signing.sealed, unreadable: endpoints.unreadable + signing.unreadable };
}

/** A stored secret pair: its row key (for paging and the compare-and-set), the owner id it is sealed under. */
interface StoredPair { key: string; owner: string; secret: string; previousSecret: string | null }

/** {@link sealStoredSecrets} over one table: pages of 500 by key, each stale row re-sealed by a compare-and-set. */
async function resealAll(box: WebhookSecretBox, table: {
  page(after: string | undefined): Promise<StoredPair[]>;
  update(row: StoredPair, data: { secret: string; previousSecret: string | null }): Promise<{ count: number }>;
}): Promise<{ sealed: number; unreadable: number }> {
  const stale = (v: string | null) => v !== null && box.needsSealing(v);
  let sealed = 0;
  let unreadable = 0;
  for (let rows = await table.page(undefined); rows.length > 0; rows = await table.page(rows[rows.length - 1]!.key)) {
    for (const row of rows) {
      if (!stale(row.secret) && !stale(row.previousSecret)) continue;
      let secret: string;
      let previous: string | null;
      try {
        secret = box.open(row.owner, row.secret);
        previous = row.previousSecret === null ? null : box.open(row.owner, row.previousSecret);
      } catch (err) {
        if (!(err instanceof WebhookSecretError)) throw err;
        unreadable += 1;
        continue;
      }
      const done = await table.update(row, { secret: box.seal(row.owner, secret), previousSecret: previous === null ? null : box.seal(row.owner, previous) });
      sealed += done.count;
    }
  }
  return { sealed, unreadable };
}
