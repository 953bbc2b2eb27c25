// SAN-7 similar cards (also used by SAN-9 recall cards): two interchangeable strategies that give
// the same cards in the same order on the same data.
//   pgvector: exact scan of knowledge_cards.embedding_vec with `<=>` (float32 accumulation in C).
//   bytea:    the user's float32 embeddings fetched as base64 and scored in JS (float64), top-k bounded.
// Both rank by (distance, cardId) and take the threshold matches as a prefix of that order, so a
// single ranked list of max(limit, fallbackK) rows answers both the threshold and the fallback case.
import { endianness } from 'node:os';
import type { Db, DbClient } from '../../db/client';
import { EMBEDDING_BYTES_PER_DIM, vectorNorm } from '../../db/vectors';

export interface SimilarCard {
  cardId: string;
  scrapId: string;
  title: string;
  /** Cosine distance in [0, 2]. */
  distance: number;
}

export interface SimilarityQuery {
  userId: string;
  /** Query embedding; rounded to float32 like stored embeddings. Length must match them (1536). */
  vector: ArrayLike<number>;
  excludeCardIds: string[];
  /**
   * Identity of the model that produced `vector`; only cards whose embedding came from
   * the same model are compared (another model's distances mean nothing). Absent: every card.
   */
  model?: string;
  /** Cards with distance <= threshold match (SAN-7: 0.5 for the local model; per model, see `similarityThresholdFor`). */
  threshold: number;
  /** How many nearest cards to return when none matches the threshold. */
  fallbackK: number;
  /** Maximum threshold matches returned (default 20). */
  limit?: number;
}

export interface SimilarityResult {
  matchedBy: 'threshold' | 'fallback';
  cards: SimilarCard[];
}

export interface CardSimilarity {
  readonly strategy: 'pgvector' | 'bytea';
  /**
   * The user's cards (minus `excludeCardIds`) with distance <= threshold, ordered by distance then
   * cardId, at most `limit`; when none matches, the `fallbackK` nearest in the same order.
   * @throws RangeError on an invalid query (empty, non-finite or zero vector, bad limits) or when
   *   a stored embedding has a different dimension.
   */
  search(q: SimilarityQuery): Promise<SimilarityResult>;
}

export const DEFAULT_SIMILAR_LIMIT = 20;

const vectorColumnCache = new WeakMap<object, Promise<boolean>>();

// Interactive-transaction clients are proxies over the root client and share its `_engine`, so
// keying the cache on it makes one detection serve a client and all of its transactions.
function cacheKey(db: DbClient): object {
  const engine = (db as unknown as { _engine?: unknown })._engine;
  return typeof engine === 'object' && engine !== null ? engine : db;
}

/**
 * Whether `knowledge_cards.embedding_vec` (pgvector) exists in the current schema; detected once
 * per client (a failed detection is retried on the next call).
 */
export function hasVectorColumn(db: DbClient): Promise<boolean> {
  const key = cacheKey(db);
  let found = vectorColumnCache.get(key);
  if (!found) {
    found = db
      .$queryRaw<{ present: boolean }[]>`
        SELECT EXISTS (
          SELECT 1 FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'knowledge_cards'
            AND column_name = 'embedding_vec'
        ) AS present`
      .then((rows) => rows[0]?.present === true);
    found.catch(() => vectorColumnCache.delete(key));
    vectorColumnCache.set(key, found);
  }
  return found;
}

/** pgvector text literal of the float32-rounded values, e.g. `[0.5,-1]`. */
export function toVectorLiteral(v: ArrayLike<number>): string {
  return `[${Array.from(Float32Array.from(v)).join(',')}]`;
}

/**
 * SAN-7: a card embedding as a pgvector text literal (`[0.5,-1]`, float32-rounded), for
 * `knowledge_cards.embedding_vec`. @throws RangeError if a value is not finite.
 */
export function cardVectorLiteral(embedding: ArrayLike<number>): string {
  assertFinite(embedding, 'embedding');
  return toVectorLiteral(embedding);
}

/**
 * SAN-7: writes a card's embedding to `knowledge_cards.embedding_vec` when that pgvector column
 * exists (no-op otherwise). Call it with the transaction that stores the card, after the card row.
 * An unknown cardId updates nothing.
 * @throws RangeError if a value is not finite; the database error on a dimension other than 1536.
 */
export async function storeCardVector(tx: DbClient, cardId: string, embedding: ArrayLike<number>): Promise<void> {
  if (!(await hasVectorColumn(tx))) return;
  await tx.$executeRaw`
    UPDATE knowledge_cards SET embedding_vec = ${cardVectorLiteral(embedding)}::vector
    WHERE id = ${cardId}::uuid`;
}

/**
 * Fills `embedding_vec` from the bytea `embedding` for cards where it is NULL (cards written
 * without {@link storeCardVector}); returns how many were filled, 0 when the column is absent.
 */
export async function backfillCardVectors(db: Db, batchSize = 200): Promise<number> {
  if (!(await hasVectorColumn(db))) return 0;
  let filled = 0;
  for (;;) {
    const ids = await db.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM knowledge_cards WHERE embedding_vec IS NULL ORDER BY id LIMIT ${batchSize}::int`;
    if (ids.length === 0) return filled;
    const cards = await db.knowledgeCard.findMany({
      where: { id: { in: ids.map((r) => r.id) } },
      select: { id: true, embedding: true },
    });
    for (const c of cards) {
      await db.$executeRaw`
        UPDATE knowledge_cards SET embedding_vec = ${toVectorLiteral(viewFloat32(c.embedding))}::vector
        WHERE id = ${c.id}::uuid AND embedding_vec IS NULL`;
    }
    filled += cards.length;
    if (cards.length === 0) return filled;
  }
}

/**
 * SAN-7: picks the similar-cards strategy. `auto` is pgvector when `knowledge_cards.embedding_vec`
 * exists (PGlite, pgvector images), else bytea.
 * @throws Error when `pgvector` is requested and the column is absent.
 */
export async function createCardSimilarity(db: DbClient, mode: 'auto' | 'pgvector' | 'bytea'): Promise<CardSimilarity> {
  if (mode === 'bytea') return byteaSimilarity(db);
  const present = await hasVectorColumn(db);
  if (present) return pgvectorSimilarity(db);
  if (mode === 'pgvector') {
    throw new Error('VECTOR_SEARCH=pgvector but knowledge_cards.embedding_vec is absent (pgvector not installed)');
  }
  return byteaSimilarity(db);
}

function pgvectorSimilarity(db: DbClient): CardSimilarity {
  return {
    strategy: 'pgvector',
    async search(q) {
      const { limit, take } = validate(q);
      const rows = await db.$queryRaw<SimilarCard[]>`
        SELECT id::text AS "cardId", scrap_id::text AS "scrapId", title,
               (embedding_vec <=> ${toVectorLiteral(q.vector)}::vector)::float8 AS distance
        FROM knowledge_cards
        WHERE user_id = ${q.userId}::uuid
          AND embedding_vec IS NOT NULL
          AND (${q.model ?? null}::text IS NULL OR embedding_model = ${q.model ?? null}::text)
          AND id <> ALL (${q.excludeCardIds}::uuid[])
        ORDER BY distance, id
        LIMIT ${take}::int`;
      return pick(rows, q.threshold, limit, q.fallbackK);
    },
  };
}

interface EmbeddingRow {
  cardId: string;
  scrapId: string;
  title: string;
  embedding: string;
}

function byteaSimilarity(db: DbClient): CardSimilarity {
  return {
    strategy: 'bytea',
    async search(q) {
      const { limit, take } = validate(q);
      const dims = q.vector.length;
      const query = Float64Array.from(Float32Array.from(q.vector));
      const queryNorm = vectorNorm(query);
      // base64 because a bytea column cannot be returned through $queryRaw with this adapter.
      const rows = await db.$queryRaw<EmbeddingRow[]>`
        SELECT id::text AS "cardId", scrap_id::text AS "scrapId", title,
               encode(embedding, 'base64') AS embedding
        FROM knowledge_cards
        WHERE user_id = ${q.userId}::uuid
          AND (${q.model ?? null}::text IS NULL OR embedding_model = ${q.model ?? null}::text)
          AND id <> ALL (${q.excludeCardIds}::uuid[])`;
      const top = new TopK(take);
      for (const row of rows) {
        const emb = viewFloat32(Buffer.from(row.embedding, 'base64'));
        if (emb.length !== dims) {
          throw new RangeError(`card ${row.cardId} has a ${emb.length}-dimension embedding, query has ${dims}`);
        }
        let dot = 0;
        let norm = 0;
        for (let i = 0; i < dims; i++) {
          const x = emb[i] as number;
          dot += x * (query[i] as number);
          norm += x * x;
        }
        const distance = norm === 0 ? Number.NaN : 1 - clamp(dot / (queryNorm * Math.sqrt(norm)));
        top.offer({ cardId: row.cardId, scrapId: row.scrapId, title: row.title, distance });
      }
      return pick(top.sorted(), q.threshold, limit, q.fallbackK);
    },
  };
}

/** Takes the threshold matches (a prefix of the ranked rows) or else the fallbackK nearest. */
function pick(ranked: SimilarCard[], threshold: number, limit: number, fallbackK: number): SimilarityResult {
  let n = 0;
  while (n < ranked.length && n < limit && (ranked[n] as SimilarCard).distance <= threshold) n++;
  if (n > 0) return { matchedBy: 'threshold', cards: ranked.slice(0, n) };
  return { matchedBy: 'fallback', cards: ranked.slice(0, fallbackK) };
}

function validate(q: SimilarityQuery): { limit: number; take: number } {
  const limit = q.limit ?? DEFAULT_SIMILAR_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer: ${limit}`);
  if (!Number.isInteger(q.fallbackK) || q.fallbackK < 0) {
    throw new RangeError(`fallbackK must be a non-negative integer: ${q.fallbackK}`);
  }
  if (!Number.isFinite(q.threshold)) throw new RangeError(`threshold must be finite: ${q.threshold}`);
  if (q.vector.length === 0) throw new RangeError('query vector is empty');
  assertFinite(q.vector, 'query vector');
  if (vectorNorm(Float32Array.from(q.vector)) === 0) throw new RangeError('query vector has zero norm');
  return { limit, take: Math.max(limit, q.fallbackK) };
}

function assertFinite(v: ArrayLike<number>, what: string): void {
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) throw new RangeError(`${what}[${i}] is not finite`);
  }
}

function clamp(sim: number): number {
  return sim > 1 ? 1 : sim < -1 ? -1 : sim;
}

const littleEndian = endianness() === 'LE';

/** Float32 view of stored embedding bytes, copying only when unaligned or on a big-endian host. */
function viewFloat32(b: Uint8Array): Float32Array {
  if (b.byteLength % EMBEDDING_BYTES_PER_DIM !== 0) {
    throw new RangeError(`embedding byte length ${b.byteLength} is not a multiple of ${EMBEDDING_BYTES_PER_DIM}`);
  }
  const n = b.byteLength / EMBEDDING_BYTES_PER_DIM;
  if (littleEndian && b.byteOffset % EMBEDDING_BYTES_PER_DIM === 0) return new Float32Array(b.buffer, b.byteOffset, n);
  const out = new Float32Array(n);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * EMBEDDING_BYTES_PER_DIM, true);
  return out;
}

/** Orders like `ORDER BY distance, id` in PostgreSQL: NaN after every number, then uuid order. */
function compareCards(a: SimilarCard, b: SimilarCard): number {
  const an = Number.isNaN(a.distance);
  const bn = Number.isNaN(b.distance);
  if (an !== bn) return an ? 1 : -1;
  if (!an && a.distance !== b.distance) return a.distance < b.distance ? -1 : 1;
  return a.cardId < b.cardId ? -1 : a.cardId > b.cardId ? 1 : 0;
}

/** The k smallest cards under {@link compareCards}, kept sorted by binary insertion. */
class TopK {
  private readonly items: SimilarCard[] = [];
  constructor(private readonly k: number) {}

  offer(c: SimilarCard): void {
    const items = this.items;
    if (this.k === 0) return;
    if (items.length === this.k && compareCards(c, items[items.length - 1] as SimilarCard) >= 0) return;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCards(items[mid] as SimilarCard, c) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, c);
    if (items.length > this.k) items.pop();
  }

  sorted(): SimilarCard[] {
    return this.items;
  }
}
