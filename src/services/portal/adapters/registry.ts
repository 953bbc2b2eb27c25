/**
 * PO-1 pluggable portal types: the list the API accepts (`portal_type`) and the adapter of each,
 * built from `config.portal`. An unknown type has no adapter (the API answers 400).
 */
import type { PortalConfig as Config } from '../../../config/portal';
import { createSuwonAdapter } from './suwon/adapter';
import type { PortalAdapter } from './types';

/** Every supported portal type. */
export const PORTAL_TYPES = ['suwon'] as const;
/** One of {@link PORTAL_TYPES}. */
export type PortalType = (typeof PORTAL_TYPES)[number];

/** True when `type` is a supported portal type. */
export function isPortalType(type: string): type is PortalType {
  return (PORTAL_TYPES as readonly string[]).includes(type);
}

/**
 * The adapter of `type` configured from `portal` (base URL per type, request timeout, page and
 * in-flight caps), or undefined for an unknown type or one without a configured base URL.
 */
export function portalAdapterFor(type: string, portal: Config['portal']): PortalAdapter | undefined {
  if (!isPortalType(type)) return undefined;
  const baseUrl = portal.baseUrls[type];
  if (!baseUrl) return undefined;
  switch (type) {
    case 'suwon':
      return createSuwonAdapter({ baseUrl, requestTimeoutMs: portal.requestTimeoutMs, pageConcurrency: portal.pageConcurrency, maxRequestsInFlight: portal.maxRequestsInFlight });
  }
}

/** Adapters of every supported type (the scrape activity's default). */
export function portalAdapters(portal: Config['portal']): Readonly<Record<string, PortalAdapter>> {
  const out: Record<string, PortalAdapter> = {};
  for (const type of PORTAL_TYPES) {
    const a = portalAdapterFor(type, portal);
    if (a) out[type] = a;
  }
  return out;
}
