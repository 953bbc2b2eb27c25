/**
 * Failure types of the portal-link family's projection activities and workflow (PO-2, DC-3), with
 * their retry class. The scraper's own failure types live in scrape-failures.ts and
 * post-processing's in post-process-failures.ts; the job's stable error code travels in the
 * failure's details ({@link PortalJobFailureDetails}). Workflow-safe catalogue.
 */
import { defineFailures } from '../../core/failures';
import type { PortalJobErrorCode } from './error-codes';

/** PO link-job failure types. */
export const PO_FAILURES = defineFailures({
  PORTAL_LINK_JOB_NOT_FOUND: { retry: 'non-retryable', description: 'the portal_link_jobs row does not exist' },
});

/** Details[0] of a PO activity failure: the job's error code. */
export interface PortalJobFailureDetails {
  code: PortalJobErrorCode | string;
}
