/**
 * The AI-runs family's routes (AR-*) as one plugin. This branch registers the decision, Task and
 * run-list routes (AR-5, AR-3 list); the run routes (POST /api/v1/ai-runs, GET, retry, cancel) join
 * here from h/ar-run at merge.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ApiDeps } from '../../deps';
import { decisionRoutes } from './decisions';
import { runListRoutes } from './list';
import { taskRoutes } from './tasks';

/** Registers every AR route on `app`. */
export const arRoutes: FastifyPluginAsync<ApiDeps> = async (app, deps) => {
  await app.register(decisionRoutes, deps);
  await app.register(runListRoutes, deps);
  await app.register(taskRoutes, deps);
};
