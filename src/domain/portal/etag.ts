/**
 * PO-4 the entity tag of a portal link job: its status and updated_at in milliseconds, base 36
 * (`"RUNNING.mip3k0l4"`). Strong: every write to a job moves updated_at, which its representation
 * shows, so one tag is one representation. Pure, no I/O.
 */

/** The strong entity tag (quotes included) of a job state. */
export function portalLinkJobEtag(job: { status: string; updatedAt: Date }): string {
  return `"${job.status}.${job.updatedAt.getTime().toString(36)}"`;
}
