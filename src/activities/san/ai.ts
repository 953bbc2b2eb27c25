/**
 * AI activities on the `ai` task queue (DC-2, SAN-7, SAN-8). They read the scrap, call the AI
 * runtime and return its validated answer; nothing is written here. AiRuntimeError is mapped to
 * Temporal's retry classes: retryable (with the provider's Retry-After as next delay) or not.
 */
import { ApplicationFailure, Context, log as activityLog } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import { AiRuntimeError, type AiRuntime, type CardAnalysis, type RefineResult, type ScrapText } from '../../ai/types';
import type { Quiz, QuizTypeName, TilResult } from '../../ai/types';
import { acceptQuizzes } from '../../domain/san/quizzes';
import { loadSourceCards } from '../../services/san/til-sources';
import { matchStarredRepos } from './github-stars';
import type { RepoMatch } from '../../domain/san/star-ranking';

/** Dependencies of the AI activities. */
export interface AiActivityDeps {
  ai: AiRuntime;
  db: PrismaClient;
}

/** Converts an AI boundary error into a Temporal failure of the right retry class. */
export function toActivityFailure(err: unknown): unknown {
  if (!(err instanceof AiRuntimeError)) return err;
  return ApplicationFailure.create({
    message: err.message,
    type: `AI_${err.code}`,
    nonRetryable: !err.retryable,
    nextRetryDelay: err.retryable && err.retryAfterMs !== undefined ? err.retryAfterMs : undefined,
    cause: err,
  });
}

/** Runs `fn` with the activity's cancellation signal and heartbeats every few seconds. */
async function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(), 2000);
  try {
    return await fn(ctx.cancellationSignal);
  } catch (err) {
    throw toActivityFailure(err);
  } finally {
    clearInterval(timer);
  }
}

/** Builds the `ai` task-queue activities. */
export function createAiActivities({ ai, db }: AiActivityDeps) {
  async function loadScrap(scrapId: string): Promise<ScrapText> {
    const scrap = await db.scrap.findUnique({ where: { id: scrapId }, select: { content: true, title: true, sourceUrl: true } });
    if (!scrap) throw ApplicationFailure.nonRetryable(`scrap ${scrapId} not found`, 'SCRAP_NOT_FOUND');
    return scrap;
  }

  return {
    /** SAN-7: title, summary, tags, category, 1536-d embedding of a scrap. Retry class from the provider. */
    async analyzeScrap(args: { scrapId: string }): Promise<CardAnalysis> {
      const text = await loadScrap(args.scrapId);
      return withHeartbeat((signal) => ai.analyzeCard(text, signal));
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
      if (cards.length === 0) throw ApplicationFailure.nonRetryable(`none of ${args.cardIds.length} cards exists`, 'NO_SOURCE_CARDS');
      return withHeartbeat((signal) => ai.generateTil({ targetDate: args.targetDate, cards }, signal));
    },

    /**
     * SAN-11: quizzes of `types` from the cards, re-validated before they are returned (requested
     * type, cites an input card, OX answer O/X, short answer not in its question); invalid quizzes
     * are dropped and logged. Retry class from the provider; non-retryable NO_SOURCE_CARDS.
     */
    async generateQuizzes(args: { cardIds: string[]; types: QuizTypeName[] }): Promise<Quiz[]> {
      const cards = await loadSourceCards(db, args.cardIds);
      if (cards.length === 0) throw ApplicationFailure.nonRetryable(`none of ${args.cardIds.length} cards exists`, 'NO_SOURCE_CARDS');
      const quizzes = await withHeartbeat((signal) => ai.generateQuizzes({ cards, types: args.types }, signal));
      const checked = acceptQuizzes(quizzes, cards.map((c) => c.cardId), args.types);
      if (checked.rejected.length > 0) activityLog.warn('quizzes rejected', { rejected: checked.rejected });
      return checked.accepted;
    },

    /**
     * SAN-12: embeds the starred repositories' texts (name, description, topics) with the runtime's
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
