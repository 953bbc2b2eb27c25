/**
 * AR-3 `GET /api/v1/companies/{companyId}/ai-runs`: a company's runs, newest first, with cursor
 * pagination over (createdAt, id) (src/api/pagination.ts: stable while runs are added) and a status
 * filter. Any member may read (VIEWER included); a company the caller is not a member of is 404.
 */
import { AiRunStatus } from '@prisma/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireMembership } from '../../../core/tenancy';
import type { ApiDeps } from '../../deps';
import { afterPosition, decodeCursor, NEWEST_FIRST, pageOf, PageQuery } from '../../pagination';
import { Uuid } from '../../schemas';
import { RUN_LIST_RESPONSES, runSummaryBody } from './decision-schemas';

const STATUSES = Object.values(AiRunStatus);
const STATUS_LIST = new RegExp(`^(${STATUSES.join('|')})(,(${STATUSES.join('|')}))*$`);

/** `?status=`: one status, a comma-separated list, or the parameter repeated. */
export const RunStatusFilter = z
  .union([
    z.string().regex(STATUS_LIST, `must be one or more of ${STATUSES.join(', ')}, comma-separated`),
    z.array(z.enum(AiRunStatus)).min(1).max(STATUSES.length),
  ])
  .optional()
  .describe(`only runs in these statuses (${STATUSES.join(', ')}): \`status=FAILED\`, \`status=QUEUED,RUNNING\` or the parameter repeated`);

/** The statuses a {@link RunStatusFilter} value names (undefined: no filter). */
export function statusesOf(filter: z.infer<typeof RunStatusFilter>): AiRunStatus[] | undefined {
  if (filter === undefined) return undefined;
  const list = typeof filter === 'string' ? (filter.split(',') as AiRunStatus[]) : filter;
  return [...new Set(list)];
}

/** The list id inside this list's cursors. */
const LIST = 'ai-runs';

/** AR-3 the per-company run list. */
export const runListRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  app.get(
    '/api/v1/companies/:companyId/ai-runs',
    {
      schema: {
        tags: ['ai-runs'],
        summary: "The company's AI runs, newest first (cursor pagination, status filter)",
        description:
          'Pages follow (createdAt, id) newest first; pass `nextCursor` as `cursor` for the next page. Runs created while a ' +
          'client pages appear at the front, never shifting later pages. Any member may read; not a member → 404.',
        params: z.object({ companyId: Uuid }),
        querystring: PageQuery.extend({ status: RunStatusFilter }),
        response: RUN_LIST_RESPONSES,
      },
    },
    async (req) => {
      const { companyId } = req.params;
      await requireMembership(deps.db, req.userId, companyId);
      const pos = req.query.cursor === undefined ? undefined : decodeCursor(LIST, req.query.cursor);
      const statuses = statusesOf(req.query.status);
      const rows = await deps.db.aiRun.findMany({
        where: { companyId, ...(statuses ? { status: { in: statuses } } : {}), ...afterPosition(pos) },
        orderBy: NEWEST_FIRST,
        take: req.query.limit + 1,
      });
      const page = pageOf(LIST, rows, req.query.limit);
      return { items: page.items.map(runSummaryBody), nextCursor: page.nextCursor };
    },
  );
};
