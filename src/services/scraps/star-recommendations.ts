/**
 * SAN-12 `POST /github-star-recommendations`: one GITHUB_STAR_RECOMMENDATION job per user (target:
 * the user id, SAN-2), enqueued in one transaction and started after commit (SAN-3, SAN-4).
 */
import type { AsyncJob } from '@prisma/client';
import { enqueueAndStart } from '../../core/enqueue';
import { checkRequestWebhook } from '../../core/webhook-requests';
import { SAN_ERRORS } from '../../domain/scraps/errors';
import type { TilRequestDeps } from './til';

/** Answer of {@link requestStarRecommendation}: the new job, or the active one (`created` false). */
export interface StarRecommendationRequest {
  job: AsyncJob;
  created: boolean;
}

/**
 * Enqueues GITHUB_STAR_RECOMMENDATION for `userId` unless one is active (then returns that job with
 * `created` false and writes nothing: the route answers 409). `webhook` (a per-request completion
 * webhook URL, src/core/webhook-requests.ts) is checked before the transaction and kept in it for
 * the new job only.
 * @throws DomainError 400 GITHUB_ACCOUNT_NOT_LINKED without a linked account; 400
 *   WEBHOOK_URL_REFUSED, 409 WEBHOOK_SIGNING_SECRET_MISSING (the webhook's checks).
 */
export async function requestStarRecommendation(deps: TilRequestDeps, userId: string, webhook?: string): Promise<StarRecommendationRequest> {
  const account = await deps.db.githubAccount.findUnique({ where: { userId }, select: { id: true } });
  if (!account) throw SAN_ERRORS.problem('GITHUB_ACCOUNT_NOT_LINKED', 'link a GitHub account first: PUT /github/account');
  if (webhook !== undefined) await checkRequestWebhook(deps.db, deps.destinations, userId, webhook);
  return enqueueAndStart(deps, async ({ enqueue, attachWebhook }) => {
    const enqueued = await enqueue({ jobType: 'GITHUB_STAR_RECOMMENDATION', targetId: userId, userId });
    if (enqueued.created && webhook !== undefined) await attachWebhook({ userId, url: webhook }, [enqueued.job.jobId]);
    return enqueued;
  });
}
