/**
 * ST-1 the entity tag of a memo-card extraction job: its status, attempts and the time of its last
 * transition (completed_at, else started_at, else created_at) in milliseconds, base 36
 * (`"processing.1.mip3k0l4"`). Strong: every write of a job changes one of them (its result is
 * written with completed_at), so one tag is one representation. Pure, no I/O.
 */

/** The strong entity tag (quotes included) of a job state. */
export function memoCardJobEtag(job: { status: string; attempts: number; createdAt: Date; startedAt: Date | null; completedAt: Date | null }): string {
  const at = job.completedAt ?? job.startedAt ?? job.createdAt;
  return `"${job.status}.${job.attempts}.${at.getTime().toString(36)}"`;
}
