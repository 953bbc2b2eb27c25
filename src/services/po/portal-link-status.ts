/**
 * PO-8 the portal link's status, written by post-processing in its transaction. Interim: the
 * portal_links table arrives with the job tables (h/po-jobs); until then this writes nothing.
 */
import type { Prisma } from '@prisma/client';

/** What {@link markPortalLinkApplied} records. */
export interface AppliedLink {
  userId: string;
  portalType: string;
  studentNumber: string;
  jobId: string;
  at: Date;
}

/** PO-8 marks the user's link to the portal as linked/refreshed by `jobId` (inside the apply transaction). */
export async function markPortalLinkApplied(_tx: Prisma.TransactionClient, _link: AppliedLink): Promise<void> {
  await Promise.resolve();
}
