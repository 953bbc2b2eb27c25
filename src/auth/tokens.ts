/** API bearer tokens: random, shown once, stored only as SHA-256. */
import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';

/** Token prefix, so leaked tokens are recognisable by secret scanners. */
export const TOKEN_PREFIX = 'djt_';

/** SHA-256 hex of a presented token (what `api_tokens.token_hash` stores). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new random token: prefix + 32 random bytes, base64url (43 chars). */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Creates a user (name unique) with one token, or adds a token to an existing user.
 * Returns the user id and the plaintext token, which is never stored.
 */
export async function createUserWithToken(
  db: PrismaClient,
  name: string,
  opts: { timeZone?: string; label?: string } = {},
): Promise<{ userId: string; token: string }> {
  const token = generateToken();
  const user = await db.user.upsert({
    where: { name },
    create: { name, ...(opts.timeZone ? { timeZone: opts.timeZone } : {}) },
    update: {},
  });
  await db.apiToken.create({ data: { userId: user.id, tokenHash: hashToken(token), label: opts.label ?? null } });
  return { userId: user.id, token };
}

/** The user id owning an unrevoked token, or null. */
export async function userIdForToken(db: PrismaClient, token: string): Promise<string | null> {
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { userId: true, revokedAt: true },
  });
  return row && !row.revokedAt ? row.userId : null;
}
