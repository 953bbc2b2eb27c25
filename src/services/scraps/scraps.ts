/**
 * SAN-7 scrap submission: normalise, deduplicate per user by SHA-256, enqueue CARD_ANALYSIS and
 * SCRAP_REFINE in the scrap's transaction, start their workflows after commit (SAN-4). A
 * per-request `webhook` (src/core/webhook-requests.ts) is kept, in the same transaction, for each
 * job the answer names that is not terminal yet.
 */
import { contentHash, normaliseContent, normaliseTitle } from '../../domain/scraps/scrap';
import { Prisma } from '@prisma/client';
import { enqueueAndStart, enqueueNewTargetAndStart, type EnqueueDeps, type EnqueueScope } from '../../core/enqueue';
import { latestJob } from '../../core/projection';
import type { DestinationPolicy } from '../../core/webhook-destination';
import { checkRequestWebhook, type JobRequestWebhook } from '../../core/webhook-requests';

/** Validated request body of `POST /scraps`. */
export interface ScrapInput {
  content: string;
  sourceUrl?: string | undefined;
  title?: string | undefined;
  /** Per-request completion webhook URL of the requesting user. */
  webhook?: string | undefined;
}

/** SAN-7 answer: the scrap and its analysis and refine jobs; `created` is false for a duplicate. */
export interface ScrapSubmission {
  scrapId: string;
  analysisJobId: string;
  refineJobId: string | null;
  created: boolean;
}

/** Dependencies of {@link submitScrap}: the enqueue's and the destination rules of a `webhook` URL. */
export interface ScrapDeps extends EnqueueDeps {
  destinations: DestinationPolicy;
}

/**
 * SAN-7: stores (or finds) the user's scrap and its jobs. New scrap → scrap + two PENDING jobs in
 * one transaction; existing scrap without card and without an active analysis job → a new
 * CARD_ANALYSIS job. Workflows of jobs created here are started after commit; with Temporal
 * unavailable the request's rows are deleted again (503 WORKFLOW_START_UNAVAILABLE), another failed
 * start is logged and left to the reconciler (the row is durable). Safe under concurrent identical calls.
 * A new scrap (the usual case) is one statement and one workflow start: the CARD_ANALYSIS run
 * starts SCRAP_REFINE's ({@link enqueueNewTargetAndStart}).
 * With `input.webhook`: checked first (nothing is written on a refusal), then kept for both jobs of
 * a new scrap, or for each job a repeat's answer names that is still PENDING or PROCESSING (the
 * analysis job it enqueued or found active, an active refine job); a repeat naming only terminal
 * jobs keeps none.
 * @throws DomainError 400 WEBHOOK_URL_REFUSED, 409 WEBHOOK_SIGNING_SECRET_MISSING (the webhook's
 *   checks); 503 WORKFLOW_START_UNAVAILABLE.
 */
export async function submitScrap(deps: ScrapDeps, userId: string, input: ScrapInput): Promise<ScrapSubmission> {
  const content = normaliseContent(input.content);
  const title = input.title === undefined ? null : normaliseTitle(input.title);
  const hash = contentHash(content);
  const webhook: JobRequestWebhook | undefined = input.webhook === undefined ? undefined : { userId, url: input.webhook };
  if (webhook) await checkRequestWebhook(deps.db, deps.destinations, userId, webhook.url);
  const fresh = await enqueueNewTargetAndStart(deps, Prisma.sql`
    INSERT INTO scraps (id, user_id, content, content_hash, source_url, title)
    VALUES (gen_random_uuid(), ${userId}::uuid, ${content}, ${hash}, ${input.sourceUrl ?? null}, ${title})
    ON CONFLICT (user_id, content_hash) DO NOTHING
    RETURNING id`, ['CARD_ANALYSIS', 'SCRAP_REFINE'], userId, (scrapId) => Prisma.sql`DELETE FROM scraps WHERE id = ${scrapId}::uuid`, webhook);
  if (fresh) {
    const [analysis, refine] = fresh.jobs;
    return { scrapId: fresh.targetId, analysisJobId: analysis!.jobId, refineJobId: refine!.jobId, created: true };
  }
  // An existing scrap (or, should it vanish meanwhile, a new one) in one transaction.
  return enqueueAndStart(deps, async (scope) => {
    const answer = await existingOrNewScrap(scope, userId, { content, hash, sourceUrl: input.sourceUrl ?? null, title });
    if (webhook) await scope.attachWebhook(webhook, answer.refineJobId ? [answer.analysisJobId, answer.refineJobId] : [answer.analysisJobId]);
    return answer;
  });
}

/** A scrap row as {@link submitScrap} stores it (normalised). */
interface ScrapRow {
  content: string;
  hash: string;
  sourceUrl: string | null;
  title: string | null;
}

/** In `scope`'s transaction: the scrap of `row.hash` inserted with its two jobs, or found (its analysis job enqueued when it has no card). */
async function existingOrNewScrap({ tx, enqueue, undoWith }: EnqueueScope, userId: string, row: ScrapRow): Promise<ScrapSubmission> {
  const inserted = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO scraps (id, user_id, content, content_hash, source_url, title)
    VALUES (gen_random_uuid(), ${userId}::uuid, ${row.content}, ${row.hash}, ${row.sourceUrl}, ${row.title})
    ON CONFLICT (user_id, content_hash) DO NOTHING
    RETURNING id`;
  const newId = inserted[0]?.id;
  if (newId) {
    undoWith((t) => t.scrap.deleteMany({ where: { id: newId } }));
    const analysis = await enqueue({ jobType: 'CARD_ANALYSIS', targetId: newId, userId });
    const refine = await enqueue({ jobType: 'SCRAP_REFINE', targetId: newId, userId });
    return { scrapId: newId, analysisJobId: analysis.job.jobId, refineJobId: refine.job.jobId, created: true };
  }
  const scrap = await tx.scrap.findUniqueOrThrow({
    where: { userId_contentHash: { userId, contentHash: row.hash } },
    select: { id: true, card: { select: { id: true } } },
  });
  let analysisJobId: string | undefined;
  if (!scrap.card) {
    const analysis = await enqueue({ jobType: 'CARD_ANALYSIS', targetId: scrap.id, userId });
    analysisJobId = analysis.job.jobId;
  } else {
    analysisJobId = (await latestJob(tx, scrap.id, 'CARD_ANALYSIS'))?.jobId;
  }
  const refine = await latestJob(tx, scrap.id, 'SCRAP_REFINE');
  if (!analysisJobId) throw new Error(`scrap ${scrap.id} has a card but no CARD_ANALYSIS job`);
  return { scrapId: scrap.id, analysisJobId, refineJobId: refine?.jobId ?? null, created: false };
}
