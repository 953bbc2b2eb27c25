/**
 * SSRF guard of webhook URLs, checked when an endpoint is registered and again before every POST
 * (a name may resolve elsewhere later: DNS rebinding). A URL must be https (http only when private
 * URLs are allowed, dev/test), carry no credentials, and every address its host resolves to must
 * be public unicast (not private, loopback, link-local, unique-local, CGNAT, multicast, reserved
 * …) unless private URLs are allowed. The POST then connects to the checked address itself.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A URL the guard accepted: the parsed URL and the address to connect to. */
export interface CheckedDestination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Why a URL was refused (`reason` is shown to the client). */
export class DestinationRefusedError extends Error {
  constructor(readonly reason: string) {
    super(`webhook URL refused: ${reason}`);
    this.name = 'DestinationRefusedError';
  }
}

/** Options of {@link checkDestination}. */
export interface DestinationPolicy {
  /** Dev/test: http and non-public addresses are accepted. */
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (default: the system resolver, every address). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

/** Whether `address` (an IP literal) is public unicast. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === 'unicast';
}

/**
 * The checked destination of `raw`.
 * @throws DestinationRefusedError for a URL that is not absolute http(s), has credentials, is http
 * outside dev mode, does not resolve, or resolves (any of its addresses) to a non-public address
 * outside dev mode.
 */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<CheckedDestination> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefusedError('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefusedError('the scheme must be https');
  if (url.protocol === 'http:' && !policy.allowPrivate) throw new DestinationRefusedError('the scheme must be https');
  if (url.username || url.password) throw new DestinationRefusedError('credentials in the URL are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (policy.resolve ?? ((h) => lookup(h, { all: true, verbatim: true })))(host);
    } catch {
      throw new DestinationRefusedError(`the host ${host} does not resolve`);
    }
  }
  const first = addresses[0];
  if (!first) throw new DestinationRefusedError(`the host ${host} does not resolve`);
  if (!policy.allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) throw new DestinationRefusedError(`the host resolves to a non-public address (${bad.address})`);
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
