/**
 * What counts as one client when requests are counted by where they come from (the rate limit
 * of requests without a credential, the console's sign-in throttle): an IPv4 address, or an
 * IPv6 /64, which is what one subscriber is given, so that stepping through its addresses does
 * not make a client many.
 */
import ipaddr from 'ipaddr.js';

/** The network a client's address stands for: the address itself, or its /64 for IPv6. */
export function clientNetwork(ip: string): string {
  if (!ip.includes(':') || !ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/**
 * TRUST_PROXY: which proxies' X-Forwarded-For, -Proto and -Host to believe. `false` believes none
 * (the address is the connection's). `true` believes every hop: the client's address is the first
 * entry of X-Forwarded-For, which only a proxy that replaces the header makes safe. A number of
 * hops believes that many proxies in front, counted from the connection: the address is the entry
 * that many back from the end (what the outermost proxy appended). A list of proxies believes
 * the addresses and ranges listed, walking back from the connection past each of them; the
 * first address that is none of them is the client's.
 */
export type TrustProxy = boolean | { hops: number } | { proxies: string[] };

/** The ranges proxy-addr knows by name, besides addresses and CIDR ranges. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_PROXY_HOPS = 100;

/** TRUST_PROXY's text as a TrustProxy; throws an Error saying what is wrong. */
export function parseTrustProxy(text: string): TrustProxy {
  const value = text.trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_PROXY_HOPS) throw new Error(`${value} hops is more than ${MAX_PROXY_HOPS}`);
    return hops === 0 ? false : { hops };
  }
  const proxies = value.split(',').map((part) => part.trim());
  for (const proxy of proxies) {
    if (NAMED_RANGES.includes(proxy) || isAddressOrRange(proxy)) continue;
    throw new Error(`"${proxy.slice(0, 60)}" is not an IP address, a CIDR range, or one of ${NAMED_RANGES.join(', ')}`);
  }
  return { proxies };
}

/** A whole address or CIDR range: IPv4 in four decimal parts only, never a shorthand such as `1.5`. */
function isAddressOrRange(text: string): boolean {
  if (text.includes(':')) return ipaddr.IPv6.isValid(text) || ipaddr.IPv6.isValidCIDR(text);
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv4.isValidCIDRFourPartDecimal(text);
}

/** What Fastify's trustProxy takes for it: a hop count as a function, since Fastify refuses bare numbers. */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'boolean') return trust;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  return trust.proxies.join(',');
}
