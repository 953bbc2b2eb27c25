/**
 * What the API's route plugins receive (one instance per process). Its own module so routes never
 * import app.ts (no cycle between the app and its routes).
 */
import type { PrismaClient } from '@prisma/client';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { JobStarter } from '../core/starter';
import type { TargetHookRegistry } from '../core/target-hooks';

/** Dependencies of every route plugin. */
export interface ApiDeps {
  config: Config;
  db: PrismaClient;
  starter: JobStarter;
  logger: Logger;
  /** Target hooks of every job type (SAN-6 retry), from the families' manifests. */
  targets: TargetHookRegistry;
}

/** What {@link buildApp}'s caller provides; the app adds the families' declarations. */
export type AppDeps = Omit<ApiDeps, 'targets'>;
