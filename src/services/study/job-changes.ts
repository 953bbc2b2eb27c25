/**
 * ST-1 the study_memo_card_jobs table as a source of the change feed (src/db/job-changes.ts), for
 * the long poll of `GET /study/memo-card-jobs/{id}`: channel `study_memo_card_jobs` (the trigger of
 * migration `20261202180000_study_memo_card_jobs_notify`), and the jobs' current ETags
 * (src/domain/study/etag.ts) for the poll mode.
 */
import type { PrismaClient } from '@prisma/client';
import type { ChangeSource } from '../../db/job-changes';
import { memoCardJobEtag } from '../../domain/study/etag';

/** The study_memo_card_jobs change source over `db`. */
export function memoCardJobChangeSource(db: PrismaClient): ChangeSource {
  return {
    channel: 'study_memo_card_jobs',
    async versions(ids) {
      const rows = await db.studyMemoCardJob.findMany({
        where: { id: { in: [...ids] } },
        select: { id: true, status: true, attempts: true, createdAt: true, startedAt: true, completedAt: true },
      });
      return new Map(rows.map((r) => [r.id, memoCardJobEtag(r)]));
    },
  };
}
