/**
 * The company an AI-run request counts against (the per-company rate limit, src/api/rate-limit.ts):
 * the `companyId` of the path or of the body, the company of the `aiRunId` or `taskId` of the path;
 * only when the caller is a member of it (so nobody spends another company's budget by naming it).
 * The request is not validated yet (the limit counts before the schema checks): ids are checked
 * here. Answers are cached per caller and resource for a few seconds (a run's company never changes; a
 * membership removed stops counting within the cache's lifetime).
 */
import type { FastifyRequest } from 'fastify';
import type { PrismaClient } from '@prisma/client';
import { LRUCache } from 'lru-cache';
import type { RouteLimits } from '../../rate-limit';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `config.limits` of the AI-run routes over `db`; answers cached `ttlMs` (at most 10 000 entries). */
export function aiRunCompanyLimits(db: PrismaClient, ttlMs = 5_000): RouteLimits {
  const cache = new LRUCache<string, { id: string | null }>({ max: 10_000, ttl: Math.max(1, ttlMs) });
  const lookup = async (userId: string, kind: 'company' | 'run' | 'task', id: string): Promise<string | null> => {
    const companyId =
      kind === 'company' ? id
      : kind === 'run' ? (await db.aiRun.findUnique({ where: { id }, select: { companyId: true } }))?.companyId
      : (await db.task.findUnique({ where: { id }, select: { companyId: true } }))?.companyId;
    if (!companyId) return null;
    const member = await db.companyMember.findUnique({ where: { companyId_userId: { companyId, userId } }, select: { companyId: true } });
    return member?.companyId ?? null;
  };
  return {
    async companyOf(req: FastifyRequest) {
      const params = (req.params ?? {}) as Record<string, unknown>;
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      const [kind, id]: ['company' | 'run' | 'task', unknown] =
        params.companyId !== undefined ? ['company', params.companyId]
        : params.aiRunId !== undefined ? ['run', params.aiRunId]
        : params.taskId !== undefined ? ['task', params.taskId]
        : ['company', body.companyId];
      if (typeof id !== 'string' || !UUID.test(id) || !req.userId) return null;
      const key = `${req.userId}:${kind}:${id}`;
      const hit = cache.get(key);
      if (hit) return hit.id;
      const found = await lookup(req.userId, kind, id);
      cache.set(key, { id: found });
      return found;
    },
  };
}
