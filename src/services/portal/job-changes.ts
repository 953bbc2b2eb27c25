/**
 * PO-4 the portal_link_jobs table as a source of the change feed (src/db/job-changes.ts), for the
 * long poll of `GET /portal/link/jobs/{id}`: channel `portal_link_jobs` (the trigger of migration
 * `20261202160000_projection_change_notify` notifies when a job's status or updated_at moves), and
 * the jobs' current ETags (src/domain/portal/etag.ts) for the poll mode.
 */
import type { PrismaClient } from '@prisma/client';
import type { ChangeSource } from '../../db/job-changes';
import { portalLinkJobEtag } from '../../domain/portal/etag';

/** The portal_link_jobs change source over `db`. */
export function portalLinkJobChangeSource(db: PrismaClient): ChangeSource {
  return {
    channel: 'portal_link_jobs',
    async versions(ids) {
      const rows = await db.portalLinkJob.findMany({ where: { id: { in: [...ids] } }, select: { id: true, status: true, updatedAt: true } });
      return new Map(rows.map((r) => [r.id, portalLinkJobEtag(r)]));
    },
  };
}
