/** Bearer-token authentication: every route except those marked `config: { public: true }`. */
import type { FastifyInstance } from 'fastify';
import type { PrismaClient } from '@prisma/client';
import { userIdForToken } from '../auth/tokens';
import { ProblemError } from './problem';

declare module 'fastify' {
  interface FastifyRequest {
    /** Authenticated user id (set by the auth hook; empty on public routes). */
    userId: string;
  }
  interface FastifyContextConfig {
    /** Route needs no token (health, docs). */
    public?: boolean;
  }
}

const unauthorized = (detail: string) => new ProblemError(401, 'UNAUTHORIZED', 'Unauthorized', detail);

/** Installs the onRequest hook resolving `Authorization: Bearer <token>` to `request.userId`. */
export function installAuth(app: FastifyInstance, db: PrismaClient): void {
  app.decorateRequest('userId', '');
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config.public || req.routeOptions.url === undefined) return;
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      reply.header('WWW-Authenticate', 'Bearer');
      throw unauthorized('missing bearer token');
    }
    const userId = await userIdForToken(db, match[1]);
    if (!userId) {
      reply.header('WWW-Authenticate', 'Bearer error="invalid_token"');
      throw unauthorized('invalid or revoked token');
    }
    req.userId = userId;
    req.log = req.log.child({ userId });
  });
}
