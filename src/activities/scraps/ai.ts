/**
 * AI activities on the `ai` task queue (DC-2, SAN-7, SAN-8). They read the scrap, call the AI
 * provider and return its validated answer; nothing is written here. AiProviderError is mapped to
 * Temporal's retry classes: retryable (with the provider's Retry-After as next delay) or not.
 */
import { log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import type { ScrapsAi } from '../../ai/scraps';
import type { CardAnalysis, RefineResult, ScrapText, TilResult } from '../../ai/scraps/answers';
import type { Quiz, QuizTypeName } from '../../domain/scraps/quizzes';
import { acceptQuizzes } from '../../domain/scraps/quizzes';
import { loadSourceCards } from '../../services/scraps/til-sources';
import { matchStarredRepos } from './github-stars';
import type { RepoMatch } from '../../domain/scraps/star-ranking';
import { failure } from '../../core/failures';
import { withHeartbeat as heartbeating } from '../../core/heartbeat';
import { toAiFailure } from '../../ai/failures';
import { SAN_FAILURES } from '../../domain/scraps/errors';
import { decodeEmbedding, encodeEmbedding } from '../../db/vectors';

/**
 * SAN-7 analysis as {@link createAiActivities}' `analyzeScrap` returns it: the
 * 1536-d embedding as base64 of float32 little-endian (8 KiB in the run's history, against about
 * 30 KiB of JSON numbers; float32 is also what storeCard keeps). Decode with {@link analysisEmbedding}.
 */
export type CardAnalysisResult = Omit<CardAnalysis, 'embedding'> & { embeddingF32: string };

/** The embedding of an analysis in either shape: {@link CardAnalysisResult}, or the plain one of older runs' histories. */
export function analysisEmbedding(analysis: CardAnalysis | CardAnalysisResult): ArrayLike<number> {
  return 'embeddingF32' in analysis ? decodeEmbedding(Buffer.from(analysis.embeddingF32, 'base64')) : analysis.embedding;
}

/** Dependencies of the AI activities. */
export interface AiActivityDeps {
  ai: ScrapsAi;
  db: PrismaClient;
}

/** Runs `fn` with the activity's cancellation signal, heartbeating; AI boundary errors mapped to failures. */
function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return heartbeating(fn, toAiFailure);
}

/** Builds the `ai` task-queue activities. */
export function createAiActivities({ ai, db }: AiActivityDeps) {
  async function loadScrap(scrapId: string): Promise<ScrapText> {
    const scrap = await db.scrap.findUnique({ where: { id: scrapId }, select: { content: true, title: true, sourceUrl: true } });
    if (!scrap) throw failure(SAN_FAILURES, 'SCRAP_NOT_FOUND', `scrap ${scrapId} not found`);
    return scrap;
  }

  return {
    /**
     * SAN-7: title, summary, tags, category, 1536-d embedding of a scrap. Retry class from the
     * provider. `embedding: 'f32'` (as cardAnalysisWorkflow asks) → {@link CardAnalysisResult};
     * without it the plain numbers, which a workflow not asking for f32 stores as they are (so the `ai` and
     * `jobs` workers may be deployed in either order).
     */
    async analyzeScrap(args: { scrapId: string; embedding?: 'f32' }): Promise<CardAnalysis | CardAnalysisResult> {
      const text = await loadScrap(args.scrapId);
      const analysis = await withHeartbeat((signal) => ai.analyzeCard(text, signal));
      if (args.embedding !== 'f32') return analysis;
      const { embedding, ...fields } = analysis;
      return { ...fields, embeddingF32: encodeEmbedding(embedding).toString('base64') };
    },

    /** SAN-8: refined content of a scrap. Retry class from the provider. */
    async refineScrap(args: { scrapId: string }): Promise<RefineResult> {
      const text = await loadScrap(args.scrapId);
      return withHeartbeat((signal) => ai.refineScrap(text, signal));
    },

    /**
     * SAN-9: TIL (title, markdown, 1536-d embedding) of `targetDate` from the cards' source text,
     * loaded here by id so that payloads stay small. Retry class from the provider; non-retryable
     * NO_SOURCE_CARDS when none of the cards exists any more.
     */
    async generateTil(args: { targetDate: string; cardIds: string[] }): Promise<TilResult> {
      const cards = await loadSourceCards(db, args.cardIds);
      if (cards.length === 0) throw failure(SAN_FAILURES, 'NO_SOURCE_CARDS', `none of ${args.cardIds.length} cards exists`);
      return withHeartbeat((signal) => ai.generateTil({ targetDate: args.targetDate, cards }, signal));
    },

    /**
     * SAN-11: quizzes of `types` from the cards, re-validated before they are returned (requested
     * type, cites an input card, OX answer O/X, short answer not in its question); invalid quizzes
     * are dropped and logged. Retry class from the provider; non-retryable NO_SOURCE_CARDS.
     */
    async generateQuizzes(args: { cardIds: string[]; types: QuizTypeName[] }): Promise<Quiz[]> {
      const cards = await loadSourceCards(db, args.cardIds);
      if (cards.length === 0) throw failure(SAN_FAILURES, 'NO_SOURCE_CARDS', `none of ${args.cardIds.length} cards exists`);
      const quizzes = await withHeartbeat((signal) => ai.generateQuizzes({ cards, types: args.types }, signal));
      const checked = acceptQuizzes(quizzes, cards.map((c) => c.cardId), args.types);
      if (checked.rejected.length > 0) activityLog.warn('quizzes rejected', { rejected: checked.rejected });
      return checked.accepted;
    },

    /**
     * SAN-12: embeds the starred repositories' texts (name, description, topics) with the provider's
     * `embed`, in batches, and returns each one's best-matching knowledge cards of `userId`. Reads
     * only. Retry class from the provider.
     */
    async matchStarredRepos(args: { userId: string; texts: string[] }): Promise<RepoMatch[]> {
      return withHeartbeat((signal) => matchStarredRepos({ ai, db }, args, signal));
    },
  };
}

/** Type of the `ai` activities, for `proxyActivities` in workflows. */
export type AiActivities = ReturnType<typeof createAiActivities>;
