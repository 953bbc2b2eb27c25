/**
 * SAN-11 / DC-3: recall_quiz_generations.status mirrors its RECALL_QUIZ_GENERATION job. Call
 * {@link mirrorJobTarget} in the same transaction as any async_jobs transition that changed a row;
 * a no-op for other job types, so generic code (e.g. SAN-6 recovery) can call it for every job.
 */
import type { DbClient } from '../../db/client';
import type { JobStatus, JobType } from '../../core/contracts';

/** Sets the status of the job's target projection to `status` when that target has one of its own. */
export async function mirrorJobTarget(tx: DbClient, job: { jobType: JobType; targetId: string }, status: JobStatus): Promise<void> {
  if (job.jobType !== 'RECALL_QUIZ_GENERATION') return;
  await tx.recallQuizGeneration.updateMany({ where: { id: job.targetId, status: { not: status } }, data: { status } });
}
