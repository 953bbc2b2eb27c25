/**
 * AR-5 reading Tasks: `GET /api/v1/tasks/{taskId}` and `GET /api/v1/companies/{companyId}/tasks`
 * (newest first, cursor pagination over (createdAt, id), optional status filter). Any member of
 * the Task's company may read (VIEWER included); anyone else gets 404.
 */
import { TaskStatus } from '@prisma/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../../../core/domain-error';
import { requireMembership } from '../../../core/tenancy';
import type { ApiDeps } from '../../deps';
import { afterPosition, decodeCursor, NEWEST_FIRST, pageOf, PageQuery } from '../../pagination';
import { ProblemSchema } from '../../problem';
import { Uuid } from '../../schemas';
import { taskBody, TaskPageSchema, TaskSchema } from './decision-schemas';
import { AR_ERRORS } from '../../../domain/ai-runs/errors';

const LIST = 'tasks';

/** AR-5 the Task routes. */
export const taskRoutes: FastifyPluginAsyncZod<ApiDeps> = async (app, deps) => {
  app.get(
    '/api/v1/tasks/:taskId',
    {
      schema: {
        tags: ['tasks'],
        summary: 'A Task made from an adopted candidate',
        params: z.object({ taskId: Uuid }),
        response: { 200: TaskSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const task = await deps.db.task.findUnique({ where: { id: req.params.taskId } });
      // A Task of a company the caller is not a member of does not exist for them (404, like the company).
      if (!task) throw AR_ERRORS.problem('NOT_FOUND', 'task not found');
      await requireMembership(deps.db, req.userId, task.companyId).catch((err: unknown) => {
        throw err instanceof DomainError ? AR_ERRORS.problem('NOT_FOUND', 'task not found') : err;
      });
      return taskBody(task);
    },
  );

  app.get(
    '/api/v1/companies/:companyId/tasks',
    {
      schema: {
        tags: ['tasks'],
        summary: "The company's Tasks, newest first (cursor pagination)",
        params: z.object({ companyId: Uuid }),
        querystring: PageQuery.extend({ status: z.enum(TaskStatus).optional().describe('only Tasks in this status') }),
        response: { 200: TaskPageSchema, 400: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const { companyId } = req.params;
      await requireMembership(deps.db, req.userId, companyId);
      const pos = req.query.cursor === undefined ? undefined : decodeCursor(LIST, req.query.cursor);
      const rows = await deps.db.task.findMany({
        where: { companyId, ...(req.query.status ? { status: req.query.status } : {}), ...afterPosition(pos) },
        orderBy: NEWEST_FIRST,
        take: req.query.limit + 1,
      });
      const page = pageOf(LIST, rows, req.query.limit);
      return { items: page.items.map(taskBody), nextCursor: page.nextCursor };
    },
  );
};
