/**
 * SAN-12 GITHUB_STAR_RECOMMENDATION activities, one group per task queue (DC-2):
 * - `github`: {@link createGithubStarActivities} fetches every starred repository (Link pagination);
 * - `ai`: {@link matchStarredRepos} embeds the repositories and compares them with the user's
 *   knowledge cards (registered in `src/activities/ai.ts`);
 * - `jobs`: {@link createStarRecommendationActivities} ranks, stores and completes the job in one
 *   transaction.
 */
import { Context, log as activityLog } from '@temporalio/activity';
import type { Prisma, PrismaClient } from '@prisma/client';
import type { ScrapsAi } from '../../ai/scraps';
import { cutToLength } from '../../core/text';
import type { TokenBox } from '../../crypto/token-box';
import { decodeEmbedding } from '../../db/vectors';
import { matchRepo, prepareCards, rankRecommendations, STAR_RANKING, type RepoMatch, type StarredRepoInput } from '../../domain/scraps/star-ranking';
import type { GithubClientFactory } from '../../github/client';
import { toGithubFailure } from '../../github/failures';
import { transitionJob } from '../../core/projection';
import { failure } from '../../core/failures';
import { SAN_FAILURES } from '../../domain/scraps/errors';
import { AI_FAILURES } from '../../ai/failures';

/** Dependencies of the `github` star activities (same as the SAN-10 GitHub activities). */
export interface GithubStarActivityDeps {
  db: PrismaClient;
  tokens: TokenBox;
  github: GithubClientFactory;
}

/** Builds the `github` task-queue activities. */
export function createGithubStarActivities({ db, tokens, github }: GithubStarActivityDeps) {
  return {
    /**
     * SAN-12: every repository the user's linked GitHub account has starred (`GET /user/starred`,
     * all pages, at most 1000), compacted (description ≤ 300 chars, ≤ 20 topics). Read-only, so
     * idempotent. Retry class: GITHUB_ACCOUNT_NOT_LINKED, GITHUB_TOKEN_UNREADABLE, 401/403/404
     * terminal; rate limits (GitHub's delay) and 5xx retryable.
     */
    async fetchStarredRepos(args: { userId: string }): Promise<StarredRepoInput[]> {
      const account = await db.githubAccount.findUnique({ where: { userId: args.userId } });
      if (!account) throw failure(SAN_FAILURES, 'GITHUB_ACCOUNT_NOT_LINKED', `user ${args.userId} has no linked GitHub account`);
      let token: string;
      try {
        token = tokens.open({ keyId: account.keyId, ciphertext: account.tokenEncrypted }, args.userId);
      } catch (err) {
        throw failure(SAN_FAILURES, 'GITHUB_TOKEN_UNREADABLE', `stored GitHub token cannot be decrypted: ${(err as Error).message}`);
      }
      const ctx = Context.current();
      ctx.heartbeat();
      const timer = setInterval(() => ctx.heartbeat(), 1000);
      try {
        const client = await github(token, ctx.cancellationSignal);
        const starred = await client.listStarred({ max: STAR_RANKING.maxRepos });
        activityLog.info('starred repositories fetched', { userId: args.userId, count: starred.length });
        return starred.map((r) => ({
          fullName: r.fullName,
          htmlUrl: r.htmlUrl,
          description: r.description === null ? null : cutToLength(r.description, STAR_RANKING.maxDescriptionChars),
          language: r.language,
          stars: r.stargazers,
          topics: r.topics.slice(0, STAR_RANKING.maxTopics),
        }));
      } catch (err) {
        throw toGithubFailure(err);
      } finally {
        clearInterval(timer);
      }
    },
  };
}

/** Type of the `github` activities, for `proxyActivities` in workflows. */
export type GithubStarActivities = ReturnType<typeof createGithubStarActivities>;

/** Texts embedded per AI call. */
const EMBED_BATCH = 64;

/**
 * AI step (runs inside the `ai` activity `matchStarredRepos`): embeds `texts` in batches
 * with the provider's `embed` and reduces each to its best-matching knowledge cards of `userId`
 * (cosine similarity, see `src/domain/star-ranking.ts`). Returns one {@link RepoMatch} per text, in
 * order; only card ids and numbers cross the workflow history. Reads only; `heartbeat` is called
 * between batches.
 */
export async function matchStarredRepos(
  deps: { ai: Pick<ScrapsAi, 'embed' | 'embeddingModel'>; db: PrismaClient },
  args: { userId: string; texts: string[] },
  signal: AbortSignal,
  heartbeat: (progress: number) => void = () => undefined,
): Promise<RepoMatch[]> {
  // Only cards embedded by the provider's own model are comparable with its vectors.
  const rows = await deps.db.knowledgeCard.findMany({
    where: { userId: args.userId, embeddingModel: deps.ai.embeddingModel },
    select: { id: true, embedding: true },
  });
  const cards = prepareCards(rows.map((r) => ({ cardId: r.id, embedding: decodeEmbedding(r.embedding) })));
  const out: RepoMatch[] = [];
  for (let i = 0; i < args.texts.length; i += EMBED_BATCH) {
    const batch = args.texts.slice(i, i + EMBED_BATCH);
    const vectors = await deps.ai.embed(batch, signal);
    if (vectors.length !== batch.length) {
      throw failure(AI_FAILURES, 'AI_MALFORMED_OUTPUT', `embed answered ${vectors.length} vectors for ${batch.length} texts`);
    }
    for (const v of vectors) out.push(matchRepo(v, cards));
    heartbeat(i + batch.length);
  }
  return out;
}

/** Builds the `jobs` task-queue activity that stores the result. */
export function createStarRecommendationActivities({ db }: { db: PrismaClient }) {
  return {
    /**
     * SAN-12: ranks the repositories (0.7 × max + 0.3 × top-3 mean cosine to the user's cards +
     * log-stars prior), stores them with their reasons (card titles) in github_star_recommendations
     * and completes the job, in one transaction. Idempotency key: jobId (unique). Retryable.
     */
    async storeStarRecommendations(args: { jobId: string; userId: string; repos: StarredRepoInput[]; matches: RepoMatch[] }): Promise<{ recommendationId: string; count: number }> {
      const cardIds = [...new Set(args.matches.flatMap((m) => m.cards.map((c) => c.cardId)))];
      const cards = await db.knowledgeCard.findMany({ where: { id: { in: cardIds } }, select: { id: true, title: true } });
      const items = rankRecommendations(args.repos, args.matches, new Map(cards.map((c) => [c.id, c.title])));
      const recommendationId = await db.$transaction(async (tx) => {
        await tx.githubStarRecommendation.createMany({
          data: [{ userId: args.userId, jobId: args.jobId, starredCount: args.repos.length, items: items as unknown as Prisma.InputJsonValue }],
          skipDuplicates: true,
        });
        const row = await tx.githubStarRecommendation.findUniqueOrThrow({ where: { jobId: args.jobId }, select: { id: true } });
        await transitionJob(tx, args.jobId, 'COMPLETED');
        return row.id;
      });
      activityLog.info('star recommendations stored', { jobId: args.jobId, recommendationId, count: items.length });
      return { recommendationId, count: items.length };
    },
  };
}

/** Type of the `jobs` activity, for `proxyActivities` in workflows. */
export type StarRecommendationActivities = ReturnType<typeof createStarRecommendationActivities>;
