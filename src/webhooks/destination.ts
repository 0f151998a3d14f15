/**
 * The check that keeps webhook deliveries off internal networks, made when each delivery connects:
 * on the addresses a name resolves to at that moment (the lookup the connection itself uses), so
 * a name that resolves to a public address when registered and to an internal one later (DNS
 * rebinding) cannot pass. An IP address in the URL is checked before connecting, as no lookup
 * happens for it.
 */
import { lookup as systemLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isAllowedDestination, type AllowedNetworks } from '../domain/webhooks.js';

/** A name lookup (dns.lookup, or a stand-in for one): every address of a name. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A delivery whose destination is not allowed: nothing was sent, no connection was made. */
export class DestinationRefused extends Error {
  constructor() {
    super('the destination address is not allowed');
    this.name = 'DestinationRefused';
  }
}

/** Whether a URL's host is an IP address that is not allowed (checked before connecting). */
export function refusedAddress(url: URL, allowed: AllowedNetworks): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && !isAllowedDestination(host, allowed);
}

/**
 * A lookup for the connection of a delivery: the addresses of the name, if every one of them is
 * allowed; DestinationRefused otherwise (a name with an internal address among others is refused
 * as a whole, whichever the connection would have tried).
 */
export function guardedLookup(allowed: AllowedNetworks, resolve: Resolver = systemLookup): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || !addresses.every((a) => isAllowedDestination(a.address, allowed))) {
        return callback(new DestinationRefused() as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
