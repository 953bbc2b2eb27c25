/**
 * AR-3 the ai_runs table as a source of the change feed (src/db/job-changes.ts), for the long poll
 * of `GET /api/v1/ai-runs/{id}`: channel `ai_runs` (the trigger of migration
 * `20261202160000_projection_change_notify` notifies when a run's version moves), and the runs'
 * current ETags (src/domain/ai-runs/etag.ts) for the poll mode.
 */
import type { PrismaClient } from '@prisma/client';
import type { ChangeSource } from '../../db/job-changes';
import { aiRunEtag } from '../../domain/ai-runs/etag';

/** The ai_runs change source over `db`. */
export function aiRunChangeSource(db: PrismaClient): ChangeSource {
  return {
    channel: 'ai_runs',
    async versions(ids) {
      const rows = await db.aiRun.findMany({ where: { id: { in: [...ids] } }, select: { id: true, version: true } });
      return new Map(rows.map((r) => [r.id, aiRunEtag(r.id, r.version)]));
    },
  };
}
