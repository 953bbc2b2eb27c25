/**
 * The AI-runs family's routes (AR-1 … AR-5) as one plugin: builds the run commands' dependencies
 * once (the workflow starter over the API's Temporal client, the outbox's input box) and registers
 * the run routes, then the decisions, Task and run-list routes (AR-5, AR-3 list); each is also rate
 * limited per company (./rate-limit.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AiRunsConfig } from '../../../config/ai-runs';
import type { ApiDeps } from '../../deps';
import { inputBoxFromConfig } from '../../../services/ai-runs/input-box';
import { createTemporalAiRunStarter, type AiRunStarter } from '../../../services/ai-runs/starter';
import { decisionRoutes } from './decisions';
import { runListRoutes } from './list';
import { aiRunRoutes } from './runs';
import { taskRoutes } from './tasks';
import { aiRunCompanyLimits } from './rate-limit';
import { AR_ERRORS } from '../../../domain/ai-runs/errors';

/** A starter for an app built without a Temporal client: runs stay QUEUED for the reconciler; retry/cancel answer 503. */
const noTemporal: AiRunStarter = {
  start: () => Promise.reject(new Error('no Temporal client in this process')),
  signalRetry: () => Promise.reject(new Error('no Temporal client in this process')),
  cancel: () => Promise.reject(new Error('no Temporal client in this process')),
  isOpen: () => Promise.reject(AR_ERRORS.problem('SERVICE_UNAVAILABLE', 'Temporal is not reachable from this process')),
};

/** Registers every AR route on `app`. */
export const arRoutes: FastifyPluginAsync<ApiDeps<AiRunsConfig>> = async (app, deps) => {
  const limits = aiRunCompanyLimits(deps.db, deps.config.api.tokenCache.ttlMs);
  // Every route of the family also counts against the company it acts for (src/api/rate-limit.ts).
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config as object), limits };
  });
  const starter = deps.temporal ? createTemporalAiRunStarter(deps.temporal, deps.config) : noTemporal;
  await app.register(aiRunRoutes, { config: deps.config, db: deps.db, hot: deps.hot, replays: deps.hot.replays, starter, box: inputBoxFromConfig(deps.config) });
  await app.register(decisionRoutes, deps);
  await app.register(runListRoutes, deps);
  await app.register(taskRoutes, deps);
};
