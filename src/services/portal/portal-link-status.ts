/**
 * PO-8 the portal link's status, written by post-processing inside its apply transaction (under
 * the student lock): an applied result makes the user's link to the portal LINKED with the job
 * whose data it now reflects (a link that was LOGIN_REQUIRED is linked again).
 */
import type { Prisma } from '@prisma/client';

/** What {@link markPortalLinkApplied} records. */
export interface AppliedLink {
  userId: string;
  portalType: string;
  /** The portal's student number of the applied result. */
  studentNumber: string;
  jobId: string;
  at: Date;
}

/**
 * PO-8 creates the user's link (LINKED, linked_at) or updates it (LINKED, last_refreshed_at), with
 * last_job_id = the applied job. Keyed by (user, portal type): a repeat writes the same values.
 */
export async function markPortalLinkApplied(tx: Prisma.TransactionClient, link: AppliedLink): Promise<void> {
  await tx.portalLink.upsert({
    where: { userId_portalType: { userId: link.userId, portalType: link.portalType } },
    create: { userId: link.userId, portalType: link.portalType, studentId: link.studentNumber, status: 'LINKED', linkedAt: link.at, lastJobId: link.jobId },
    update: { studentId: link.studentNumber, status: 'LINKED', lastRefreshedAt: link.at, lastJobId: link.jobId },
  });
}
