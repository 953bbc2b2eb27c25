/** The knowledge-scrap family's settings (SAN-1, SAN-7): the content limit and similar cards. */
import { z } from 'zod';
import type { CoreConfig } from './core';
import { ConfigError, configSection, type SectionOf } from './env';

/** The scraps section. */
export const SCRAPS_CONFIG = configSection(
  {
    SCRAP_MAX_CONTENT_CHARS: z.coerce.number().int().min(1).default(100_000).describe('SAN-1 longest accepted scrap content, in characters.'),
    SIMILAR_CARDS_THRESHOLD: z.coerce.number().min(0).max(2).default(0.5).describe('SAN-7 cosine-distance threshold of similar cards (0-2).'),
    SIMILAR_CARDS_THRESHOLDS: z.string().optional().describe('Per-model thresholds `<model identity>=<distance>,…` over the calibrated ones.'),
    SIMILAR_CARDS_FALLBACK_K: z.coerce.number().int().min(1).max(100).default(5).describe('Number of nearest cards returned when none pass the threshold (1-100).'),
    VECTOR_SEARCH: z.enum(['auto', 'pgvector', 'bytea']).default('auto').describe('Vector search: auto | pgvector | bytea.'),
  },
  (e) => ({
    /** SAN-1 longest accepted scrap content, in characters. */
    scraps: { maxContentChars: e.SCRAP_MAX_CONTENT_CHARS },
    /** SAN-7 similar cards. */
    similarity: {
      threshold: e.SIMILAR_CARDS_THRESHOLD,
      /** Per-model thresholds (`SIMILAR_CARDS_THRESHOLDS`, `model=distance,…`) over the calibrated ones. */
      thresholds: parseSimilarityThresholds(e.SIMILAR_CARDS_THRESHOLDS),
      fallbackK: e.SIMILAR_CARDS_FALLBACK_K,
      vectorSearch: e.VECTOR_SEARCH,
    },
  }),
);

/** The config the scraps family's code reads: the core's and its own section. */
export type ScrapsConfig = CoreConfig & SectionOf<typeof SCRAPS_CONFIG>;

/**
 * Parses `SIMILAR_CARDS_THRESHOLDS` (`model=distance,model=distance`, distances in [0, 2]).
 * @throws ConfigError naming the bad entry.
 */
export function parseSimilarityThresholds(spec: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (spec ?? '').split(',')) {
    if (!part.trim()) continue;
    const at = part.lastIndexOf('=');
    const model = part.slice(0, at).trim();
    const raw = part.slice(at + 1).trim();
    const value = Number(raw);
    if (at <= 0 || !model || !raw || !Number.isFinite(value) || value < 0 || value > 2) {
      throw new ConfigError(`invalid configuration:\n  SIMILAR_CARDS_THRESHOLDS: expected model=distance with a distance in [0, 2], got ${JSON.stringify(part.trim())}`);
    }
    out[model] = value;
  }
  return out;
}
