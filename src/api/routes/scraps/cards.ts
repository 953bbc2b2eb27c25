/** `GET /cards/{scrapId}` and `GET /cards/{cardId}/similar-cards` (SAN-7). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { similarityThresholdFor } from '../../../ai/embedding-models';
import { decodeEmbedding } from '../../../db/vectors';
import type { SanRouteDeps } from './deps';
import { ProblemSchema } from '../../problem';
import { Uuid } from '../../schemas';
import { notFound } from '../../../core/errors';

const CardSchema = z
  .object({
    cardId: z.uuid(),
    scrapId: z.uuid(),
    title: z.string(),
    summary: z.string(),
    category: z.string(),
    tags: z.array(z.string()),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'KnowledgeCard' });

const SimilarSchema = z
  .object({
    cardId: z.uuid(),
    matchedBy: z.enum(['threshold', 'fallback']),
    threshold: z.number(),
    cards: z.array(z.object({ cardId: z.uuid(), scrapId: z.uuid(), title: z.string(), distance: z.number() })),
  })
  .meta({ id: 'SimilarCards' });

/** Card reads, scoped to the caller's own cards. */
export const cardRoutes: FastifyPluginAsyncZod<SanRouteDeps> = async (app, deps) => {
  app.get(
    '/cards/:id',
    {
      schema: {
        tags: ['cards'],
        summary: 'The knowledge card of a scrap (path id = scrapId); 404 until CARD_ANALYSIS completes',
        params: z.object({ id: Uuid.describe('scrapId') }),
        response: { 200: CardSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const card = await deps.db.knowledgeCard.findFirst({
        where: { scrapId: req.params.id, userId: req.userId },
        include: { category: true, tags: { include: { tag: true } } },
      });
      if (!card) throw notFound(`card of scrap ${req.params.id}`);
      return {
        cardId: card.id,
        scrapId: card.scrapId,
        title: card.title,
        summary: card.summary,
        category: card.category.name,
        tags: card.tags.map((t) => t.tag.name).sort(),
        createdAt: card.createdAt.toISOString(),
      };
    },
  );

  app.get(
    '/cards/:id/similar-cards',
    {
      schema: {
        tags: ['cards'],
        summary: "Cards within the embedding model's cosine-distance threshold of this card (0.5 for the local model; path id = cardId); else the K nearest",
        description: 'Only cards whose embedding came from the same model are compared; `threshold` is the one that applied.',
        params: z.object({ id: Uuid.describe('cardId') }),
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
        response: { 200: SimilarSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const card = await deps.db.knowledgeCard.findFirst({
        where: { id: req.params.id, userId: req.userId },
        select: { id: true, embedding: true, embeddingModel: true },
      });
      if (!card) throw notFound(`card ${req.params.id}`);
      // Only cards embedded by the same model, with that model's calibrated threshold.
      const threshold = similarityThresholdFor(deps.config.similarity, card.embeddingModel);
      const result = await deps.similarity.search({
        userId: req.userId,
        vector: decodeEmbedding(card.embedding),
        excludeCardIds: [card.id],
        model: card.embeddingModel,
        threshold,
        fallbackK: deps.config.similarity.fallbackK,
        limit: req.query.limit,
      });
      // `limit` caps the page in both modes (the K-nearest fallback included).
      const cards = result.cards.slice(0, req.query.limit);
      return { cardId: card.id, matchedBy: result.matchedBy, threshold, cards };
    },
  );
};
