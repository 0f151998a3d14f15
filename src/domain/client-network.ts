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
