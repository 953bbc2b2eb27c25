/** PO-1 the portal types the API accepts: those a portal adapter exists for (unknown → 400 PORTAL_TYPE_UNSUPPORTED). */

/** Portal types with an adapter. */
export const SUPPORTED_PORTAL_TYPES: readonly string[] = ['suwon'];

/** True when `type` names a portal adapter. */
export function isPortalType(type: string): boolean {
  return SUPPORTED_PORTAL_TYPES.includes(type);
}
