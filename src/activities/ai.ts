/**
 * AI activities on the `ai` task queue (DC-2, SAN-7, SAN-8). They read the scrap, call the AI
 * runtime and return its validated answer; nothing is written here. AiRuntimeError is mapped to
 * Temporal's retry classes: retryable (with the provider's Retry-After as next delay) or not.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import { AiRuntimeError, type AiRuntime, type CardAnalysis, type RefineResult, type ScrapText } from '../ai/types';

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
  };
}

/** Type of the `ai` activities, for `proxyActivities` in workflows. */
export type AiActivities = ReturnType<typeof createAiActivities>;
