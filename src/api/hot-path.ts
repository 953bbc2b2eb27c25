/**
 * The API's hot read path (job reads and long polling), opened once per app: the typed `pg`
 * reads that bypass Prisma (src/db/hot-reads.ts), the bounded bearer-token cache
 * (src/auth/token-cache.ts), the job change feed the long poll waits on (src/db/job-changes.ts),
 * and the replay fast path of idempotent creates (src/core/replay-answers.ts with the membership
 * cache of src/core/member-cache.ts).
 * Everything it opens closes with the app.
 */
import type { FastifyInstance } from 'fastify';
import { Pool } from 'pg';
import { createCachedTokenResolver, type CachedTokenResolver } from '../auth/token-cache';
import { pgPoolOf } from '../db/client';
import { createHotReads, type HotReads } from '../db/hot-reads';
import { openJobChangeFeed, type JobChangeFeed } from '../db/job-changes';
import { createMemberCache } from '../core/member-cache';
import { createReplayAnswers, type ReplayPath } from '../core/replay-answers';
import type { PrismaClient } from '@prisma/client';
import type { Logger } from 'pino';
import type { CoreConfig as Config } from '../config';

/** What routes use of the hot path (`deps.hot`). */
export interface HotPath {
  reads: HotReads;
  tokens: CachedTokenResolver;
  changes: JobChangeFeed;
  replays: ReplayPath;
  /** Closes what {@link openHotPath} opened (the change feed, an own pool); the app's onClose calls it. */
  close(): Promise<void>;
}

/**
 * Opens the hot path for an app over `deps.db`: its queries use the pool under the Prisma client
 * (`pgPoolOf`), or, for a client not made by `createPrisma`, a pool of 2 of its own to
 * DATABASE_URL. The LISTEN connection goes to the same database as that pool.
 * @throws when neither a Prisma pool nor DATABASE_URL is available, or JOB_CHANGE_FEED=listen
 *   cannot connect.
 */
export async function openHotPath(deps: { config: Config; db: PrismaClient; logger: Logger }): Promise<HotPath> {
  const shared = pgPoolOf(deps.db);
  let own: Pool | undefined;
  if (!shared) {
    if (!deps.config.database.url) throw new Error('the API hot path needs DATABASE_URL or a client made by createPrisma');
    own = new Pool({ connectionString: deps.config.database.url, max: 2, idleTimeoutMillis: 10_000 });
  }
  const pool = (shared ?? own) as Pool;
  const url = pool.options.connectionString ?? deps.config.database.url;
  if (!url) throw new Error('the API hot path needs the database URL of its pool');
  const reads = createHotReads(pool, { prepared: await usePreparedStatements(pool, deps.config.api.hotReadsPrepared) });
  const tokens = createCachedTokenResolver({
    lookup: (hash) => reads.userIdForTokenHash(hash),
    ttlMs: deps.config.api.tokenCache.ttlMs,
    max: deps.config.api.tokenCache.max,
  });
  const replays: ReplayPath = {
    answers: createReplayAnswers({ read: (scopeId, operation, keyHash) => reads.idempotencyRecord(scopeId, operation, keyHash), max: deps.config.idempotency.replayCacheMax }),
    // Membership answers live as long as resolved tokens do (the same revocation bound).
    members: createMemberCache({ lookup: (companyId, userId) => reads.memberRole(companyId, userId), ttlMs: deps.config.api.tokenCache.ttlMs, max: deps.config.api.tokenCache.max }),
    reads,
  };
  const wait = deps.config.api.jobWait;
  const log = deps.logger.child({ component: 'hot-path' });
  try {
    const changes = await openJobChangeFeed({
      // No waits allowed: nothing to listen for (the poll feed polls only while someone waits).
      mode: wait.maxSeconds === 0 || wait.maxWaiters === 0 ? 'poll' : wait.feed,
      url,
      db: pool,
      pollMs: wait.pollMs,
      maxWaiters: wait.maxWaiters,
      log,
    });
    return {
      reads,
      tokens,
      changes,
      replays,
      async close() {
        await changes.close();
        await own?.end();
      },
    };
  } catch (err) {
    await own?.end();
    throw err;
  }
}

/**
 * Named prepared statements save the server its parse and plan of every hot read (about half of
 * PostgreSQL's CPU per `GET /async-jobs/{id}`, measured). Not on PGlite: its wire front shares one
 * session between connections, where the second connection's `Parse` of a name would collide.
 */
async function usePreparedStatements(pool: Pool, setting: 'auto' | 'true' | 'false'): Promise<boolean> {
  if (setting !== 'auto') return setting === 'true';
  const { rows } = await pool.query<{ v: string }>('SELECT version() AS v');
  return !/pglite/i.test(rows[0]?.v ?? '');
}

/**
 * Ties the hot path to the app's lifecycle: waiting long polls answer at once when the app starts
 * closing (preClose, before in-flight requests are awaited), and the feed and any own pool close
 * with the app (onClose).
 */
export function closeWithApp(app: FastifyInstance, hot: HotPath): void {
  app.addHook('preClose', async () => hot.changes.drain());
  app.addHook('onClose', async () => hot.close());
}
