/** Shared fixtures of the AR runtime unit tests: a fixed reference time and request builder. */
import { WORKFLOW_CATALOG_VERSION } from '../../../src/domain/ai-runs/catalog';
import type { RuntimeRequest } from '../../../src/domain/ai-runs/contract';

/** Tuesday 2026-12-01, 12:00 in Seoul. */
export const REFERENCE_TIME = '2026-12-01T03:00:00Z';

let seq = 0;
/** A valid runtime request for `text` at {@link REFERENCE_TIME}. */
export function request(text: string, extra: Partial<RuntimeRequest> = {}): RuntimeRequest {
  seq += 1;
  return { requestId: `req-${seq}`, text, workflowCatalogVersion: WORKFLOW_CATALOG_VERSION, referenceTime: REFERENCE_TIME, ...extra };
}
