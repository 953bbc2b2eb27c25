/**
 * Per-target hooks (DC-3, SAN-6): what a job type's target needs when core code moves its job, so
 * recovery and retry never name a job type or a family. A family registers hooks for the job types
 * whose target has a status of its own (e.g. a generation row mirroring its job) or that must not
 * be re-run once the target closed.
 */
import type { PrismaClient } from '@prisma/client';
import type { DbClient } from '../db/client';
import type { JobStatus, JobType } from './contracts';

/** Hooks of one job type's target; every one is optional. */
export interface TargetHooks {
  /**
   * DC-3: the job's async_jobs row just moved to `status` (recovery FAILED, re-enqueue PENDING);
   * mirror it onto the target's own status. Runs in the same transaction; must be idempotent.
   */
  mirror?(tx: DbClient, targetId: string, status: JobStatus): Promise<void>;
  /**
   * SAN-6: may a FAILED job of this target be re-enqueued? Runs in the re-enqueue's transaction,
   * after the guarded update; false rolls it back and the outcome is `target-closed`.
   */
  mayRequeue?(tx: DbClient, targetId: string): Promise<boolean>;
  /** What a client should do instead when `mayRequeue` refused (shown in the 409 detail). */
  closedHint?: string;
  /** SAN-6: the job stays FAILED for good (recovery did not re-enqueue it): close the target too. */
  giveUp?(db: PrismaClient, targetId: string, errorMessage: string): Promise<void>;
}

/** Job type → its target hooks; assembled from the families' manifests. */
export type TargetHookRegistry = Readonly<Partial<Record<JobType, TargetHooks>>>;

/** Hooks of `jobType` (an empty object when it registers none). */
export function hooksOf(registry: TargetHookRegistry, jobType: JobType): TargetHooks {
  return registry[jobType] ?? {};
}
