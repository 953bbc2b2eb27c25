/**
 * The study family's routes (ST-1 … ST-6) as one plugin: topics, questions and explanations, the
 * memo cards and their extraction jobs, and the review loop (reviews, due cards, reminders).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { StudyConfig } from '../../../config/study';
import type { ApiDeps } from '../../deps';
import { memoCardRoutes } from './memo-cards';
import { studyReviewRoutes } from './reviews';
import { studyRoutes } from './study';

/** Registers every ST route on `app`. */
export const stRoutes: FastifyPluginAsync<ApiDeps<StudyConfig>> = async (app, deps) => {
  await app.register(studyRoutes, deps);
  await app.register(memoCardRoutes, deps);
  await app.register(studyReviewRoutes, deps);
};
