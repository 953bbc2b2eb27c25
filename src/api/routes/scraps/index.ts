/**
 * The knowledge-scrap family's routes (SAN-5 … SAN-12) as one plugin: builds the card similarity
 * search once (pgvector when present, else in-process scoring) and registers every SAN route.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ScrapsConfig } from '../../../config/scraps';
import type { ApiDeps } from '../../deps';
import { createCardSimilarity } from '../../../services/scraps/similarity';
import type { SanRouteDeps } from './deps';
import { cardRoutes } from './cards';
import { githubRoutes } from './github';
import { recallQuizRoutes } from './recall-quizzes';
import { scrapRoutes } from './scraps';
import { starRecommendationRoutes } from './star-recommendations';
import { tilRoutes } from './til';

/** Registers every SAN route on `app`. */
export const sanRoutes: FastifyPluginAsync<ApiDeps<ScrapsConfig>> = async (app, deps) => {
  const similarity = await createCardSimilarity(deps.db, deps.config.similarity.vectorSearch);
  app.log.debug({ vectorSearch: similarity.strategy }, 'san routes: similar-card search ready');
  const san: SanRouteDeps = { ...deps, similarity };
  await app.register(scrapRoutes, san);
  await app.register(cardRoutes, san);
  await app.register(starRecommendationRoutes, san);
  await app.register(githubRoutes, san);
  await app.register(tilRoutes, san);
  await app.register(recallQuizRoutes, san);
};
