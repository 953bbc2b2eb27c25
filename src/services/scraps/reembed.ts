/**
 * The re-embedding path of a model switch (SAN-7 cards, SAN-9 TILs): every stored vector
 * whose `embedding_model` is not the provider's model is embedded again from its source text (a
 * card from its scrap's content, as `analyzeCard` embeds it; a TIL from its markdown) and written
 * with the new identity (and the pgvector column) in one statement per row.
 *
 * Resumable by construction: a pass selects the rows still on another model, in id order, a batch
 * at a time, and each row is committed on its own, so an interrupted pass (Ctrl-C, crash, outage)
 * loses at most the rows of one batch in flight and the next pass continues with the rest. A row
 * is only overwritten while it still has the model it was read with, so a card re-analysed
 * meanwhile keeps its newer vector. Until a pass finishes, similar cards compare only cards of one
 * model, so old and new vectors are never mixed.
 */
import type { ScrapsAi } from '../../ai/scraps';
import type { Db } from '../../db/client';
import { encodeEmbedding } from '../../db/vectors';
import { storeCardVector } from './similarity';

/** Progress of a re-embedding pass. */
export interface ReembedProgress {
  /** Model the vectors now come from. */
  model: string;
  cards: number;
  tils: number;
}

/** Options of {@link reembed}. */
export interface ReembedOptions {
  /** Rows per `embed` call (default 16). */
  batchSize?: number;
  /** Stop after this many rows in total (default: all); the next pass continues. */
  maxRows?: number;
  /** Called after each batch. */
  onBatch?: (p: ReembedProgress) => void;
  signal?: AbortSignal;
}

/**
 * Re-embeds, with `ai.embed`, every card and generated TIL not yet of `ai`'s embedding model.
 * Returns how many rows it rewrote (0 when everything is already on the model).
 * @throws AiProviderError from the provider; database errors. Rows written before stay written.
 */
export async function reembed(db: Db, ai: Pick<ScrapsAi, 'embed' | 'embeddingModel'>, opts: ReembedOptions = {}): Promise<ReembedProgress> {
  const model = ai.embeddingModel;
  const batchSize = opts.batchSize ?? 16;
  const budget = opts.maxRows ?? Number.POSITIVE_INFINITY;
  const progress: ReembedProgress = { model, cards: 0, tils: 0 };
  const left = () => budget - progress.cards - progress.tils;

  while (left() > 0) {
    const cards = await db.knowledgeCard.findMany({
      where: { embeddingModel: { not: model } },
      orderBy: { id: 'asc' },
      take: Math.min(batchSize, left()),
      select: { id: true, embeddingModel: true, scrap: { select: { content: true } } },
    });
    if (cards.length === 0) break;
    const vectors = await ai.embed(cards.map((c) => c.scrap.content), opts.signal);
    for (const [i, c] of cards.entries()) {
      const v = vectors[i] as number[];
      await db.$transaction(async (tx) => {
        const { count } = await tx.knowledgeCard.updateMany({
          where: { id: c.id, embeddingModel: c.embeddingModel },
          data: { embedding: new Uint8Array(encodeEmbedding(v)), embeddingModel: model },
        });
        if (count === 1) await storeCardVector(tx, c.id, v);
      });
    }
    progress.cards += cards.length;
    opts.onBatch?.({ ...progress });
  }

  while (left() > 0) {
    const tils = await db.dailySummary.findMany({
      where: { embeddingModel: { not: model }, embedding: { not: null }, tilMarkdown: { not: null } },
      orderBy: { id: 'asc' },
      take: Math.min(batchSize, left()),
      select: { id: true, embeddingModel: true, tilMarkdown: true },
    });
    if (tils.length === 0) break;
    const vectors = await ai.embed(tils.map((t) => t.tilMarkdown ?? ''), opts.signal);
    for (const [i, t] of tils.entries()) {
      await db.dailySummary.updateMany({
        where: { id: t.id, embeddingModel: t.embeddingModel },
        data: { embedding: new Uint8Array(encodeEmbedding(vectors[i] as number[])), embeddingModel: model },
      });
    }
    progress.tils += tils.length;
    opts.onBatch?.({ ...progress });
  }
  return progress;
}
