/**
 * The study family's routes (issue 10) as one plugin. This branch registers the review loop's
 * routes only; the topics, questions and memo-card read routes join here when the family lands.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ApiDeps } from '../../deps';
import { studyReviewRoutes } from './reviews';

/** Registers every ST route on `app`. */
export const stRoutes: FastifyPluginAsync<ApiDeps> = async (app, deps) => {
  await app.register(studyReviewRoutes, deps);
};
