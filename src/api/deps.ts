/**
 * What the API's route plugins receive (one instance per process). Its own module so routes never
 * import app.ts (no cycle between the app and its routes).
 */
import type { ProblemRegistry } from '../core/problems';
import type { PrismaClient } from '@prisma/client';
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { CoreConfig } from '../config';
import type { JobStarter } from '../core/starter';
import type { TargetHookRegistry } from '../core/target-hooks';
import type { HotPath } from './hot-path';

/**
 * Dependencies of every route plugin. `C` is the config a plugin reads: the core's for the app's own
 * routes, the family's config type (src/config/<family>.ts) for a family's.
 */
export interface ApiDeps<C extends CoreConfig = CoreConfig> {
  config: C;
  db: PrismaClient;
  starter: JobStarter;
  /** The process's Temporal client, for routes that start or signal workflows of their own (absent: they answer 503 or leave work to the reconciler). */
  temporal?: Client;
  logger: Logger;
  /** Target hooks of every job type (SAN-6 retry), from the families' manifests. */
  targets: TargetHookRegistry;
  /** The `pg` hot reads, the token cache and the job change feed (opened by the app). */
  hot: HotPath;
}

/**
 * What `buildApp`'s caller provides: the process's resources and the families' route plugins,
 * target hooks and problem codes (from src/families, so the app itself names no family); the app opens the hot path.
 */
export type AppDeps<C extends CoreConfig = CoreConfig> = Omit<ApiDeps<C>, 'hot'> & {
  /** Route plugins registered after the core's, each with {@link ApiDeps}. */
  routes: readonly FastifyPluginAsync<ApiDeps<C>>[];
  /** Problem code → status and title: the core's and the families' (absent: the core's only). */
  problems?: ProblemRegistry;
};
