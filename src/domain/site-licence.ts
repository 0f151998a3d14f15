/**
 * Site licences: a subscription with `license: "site"` that gives its access to everyone on its
 * networks (`ipRanges`, CIDR) and everyone whose email is at its domains (`emailDomains`), with a
 * number of `seats`. The rules here are pure: what a range or a domain may be, their one written
 * form, and the keys a store finds them by.
 *
 * Finding the licences of an address is one read of exact keys whatever the number of licences:
 * a range is kept as (prefix length, network), and an address asks for its own network at every
 * prefix length a range may have (IPv4 /8–/32: 25 keys; IPv6 /32–/128: 97), each an index probe.
 * A domain is kept as written (`acme.com`, or `*.acme.com` for its subdomains), and a reader's
 * domain asks for itself and for the wildcard of each of its parents.
 *
 * Decisions where the interface leaves a choice:
 * - A range with host bits set (`10.1.2.3/8`) is refused, naming the network it may mean: taking it
 *   as `10.0.0.0/8` would silently open a network sixteen million addresses wide to a typo of /24.
 * - Addresses are written as RFC 791 and RFC 4291 write them. A leading zero (`010.0.0.1`) is
 *   refused: some readers take it as octal (8.0.0.1), others as decimal. A zone id (`fe80::1%eth0`)
 *   is refused: it names a link of the host that asks, which no licence can mean.
 * - An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is the IPv4 address it maps, for a lookup; a
 *   range written in mapped form is refused (write it as IPv4), so each network has one form.
 * - Domains are kept as ASCII names: an internationalised one sent in Unicode (`bücher.example`)
 *   is kept in its `xn--` form (IDNA, as URLs convert it), the form readers' addresses carry (an
 *   email is ASCII: domain/email.ts). At least two labels, and
 *   neither a public suffix nor the wildcard of one: `com`, `co.uk`, `*.co.uk` are refused. The
 *   suffixes are a built-in list of the common multi-label ones (every single label is refused
 *   anyway), not the whole Public Suffix List: a dependency of 10,000 names, updated weekly, for
 *   rare suffixes a publisher's staff are unlikely to type.
 */
import { domainToASCII } from 'node:url';

/**
 * How many ranges and domains one licence holds at most: a campus has a handful, a hospital trust
 * tens. It is also what any array in a document may hold (bounds.ts), which keeps validation and
 * the write of a licence's keys bounded; a consortium of many members takes a licence each.
 */
export const MAX_IP_RANGES = 100;
export const MAX_EMAIL_DOMAINS = 100;
/**
 * The longest a range may be written: an IPv6 address with every group in four digits and an IPv4
 * address in its last two (0000:0000:0000:0000:0000:0000:255.255.255.255/128).
 */
export const MAX_RANGE_LENGTH = 49;
/** The most seats a licence may have. */
export const MAX_SEATS = 1_000_000;

/** The prefix lengths a range may have, per family: no range wider than a /8 (IPv4) or a /32 (IPv6). */
export const PREFIX_LENGTHS = { 4: { min: 8, max: 32 }, 6: { min: 32, max: 128 } } as const;

export type Family = 4 | 6;

/** An address: its family and its bytes (4 or 16). */
export interface Address {
  family: Family;
  bytes: Uint8Array;
}

/** What a store keeps of a range, and what an address is looked up by. */
export interface RangeKey {
  family: Family;
  prefixLength: number;
  /** The network's bytes, host bits zero: 4 for IPv4, 16 for IPv6. */
  network: Uint8Array;
}

/** An address, or why the text is none. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const IPV4_PART = /^(0|[1-9][0-9]{0,2})$/;

function parseIpv4(text: string): Parsed<Uint8Array> {
  const parts = text.split('.');
  if (parts.length !== 4) return { ok: false, problem: 'is not an IP address' };
  const bytes = new Uint8Array(4);
  for (const [i, part] of parts.entries()) {
    if (/^0[0-9]/.test(part)) {
      return { ok: false, problem: 'has a leading zero, which some read as octal: write each part in decimal' };
    }
    if (!IPV4_PART.test(part) || Number(part) > 255) return { ok: false, problem: 'is not an IP address' };
    bytes[i] = Number(part);
  }
  return { ok: true, value: bytes };
}

const HEXTET = /^[0-9a-fA-F]{1,4}$/;

function parseIpv6(text: string): Parsed<Uint8Array> {
  const invalid = { ok: false as const, problem: 'is not an IP address' };
  const halves = text.split('::');
  if (halves.length > 2) return invalid;
  const groupsOf = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  const words: number[] = [];
  const all = [...head, ...tail];
  // An IPv4 address may end it (RFC 4291 2.2.3), in place of its last two groups.
  let ipv4: Uint8Array | undefined;
  const last = all.at(-1);
  if (last !== undefined && last.includes('.')) {
    // Only as the last groups: "1.2.3.4::" has groups after it.
    if (tail.length === 0 && halves.length === 2) return invalid;
    const parsed = parseIpv4(last);
    if (!parsed.ok) return parsed;
    ipv4 = parsed.value;
    if (tail.length > 0) tail.pop();
    else head.pop();
  }
  for (const group of [...head, ...tail]) if (!HEXTET.test(group)) return invalid;
  const groups = head.length + tail.length + (ipv4 ? 2 : 0);
  if (halves.length === 1 ? groups !== 8 : groups > 7) return invalid;
  words.push(...head.map((g) => parseInt(g, 16)));
  // Stryker disable next-line ConditionalExpression: without :: there are 8 groups (checked above), so no zero to add
  if (halves.length === 2) for (let i = groups; i < 8; i++) words.push(0);
  words.push(...tail.map((g) => parseInt(g, 16)));
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  if (ipv4) bytes.set(ipv4, 12);
  return { ok: true, value: bytes };
}

/** Whether 16 bytes are an IPv4-mapped address (::ffff:a.b.c.d). */
function isMapped(bytes: Uint8Array): boolean {
  // Stryker disable next-line ConditionalExpression: IPv4's four bytes have no bytes[10], so the test below is false of them too
  if (bytes.length !== 16) return false;
  // A loop, not subarray().every(): each address asked about is tested, and the slice cost more than the test.
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** An address as written, in its own family (a mapped IPv6 address stays IPv6 here). */
export function parseWrittenAddress(text: string): Parsed<Address> {
  return parseWritten(text);
}

function parseWritten(text: string): Parsed<Address> {
  if (text.includes('%')) {
    return { ok: false, problem: 'has a zone id (%…), which names a link of the asking host: leave it out' };
  }
  if (text.includes(':')) {
    const parsed = parseIpv6(text);
    return parsed.ok ? { ok: true, value: { family: 6, bytes: parsed.value } } : parsed;
  }
  const parsed = parseIpv4(text);
  return parsed.ok ? { ok: true, value: { family: 4, bytes: parsed.value } } : parsed;
}

/**
 * An address to look up: IPv4, or IPv6 (an IPv4-mapped one is the IPv4 address it maps, which is
 * how a dual-stack server may see an IPv4 client).
 */
export function parseAddress(text: string): Parsed<Address> {
  const parsed = parseWritten(text);
  return parsed.ok ? { ok: true, value: unmapped(parsed.value) } : parsed;
}

/** The address an address is looked up as: an IPv4-mapped IPv6 address is the IPv4 address it maps. */
export function unmapped(address: Address): Address {
  return isMapped(address.bytes) ? { family: 4, bytes: address.bytes.slice(12) } : address;
}

/** The network of `bytes` at `prefixLength`: the host bits zeroed. */
export function networkOf(bytes: Uint8Array, prefixLength: number): Uint8Array {
  const network = new Uint8Array(bytes.length);
  // Stryker disable next-line EqualityOperator: a write past a typed array's end is ignored
  for (let i = 0; i < bytes.length; i++) {
    const bits = Math.min(8, Math.max(0, prefixLength - i * 8));
    network[i] = (bytes[i] as number) & ((0xff << (8 - bits)) & 0xff);
  }
  return network;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  // Stryker disable next-line ConditionalExpression: within compares only ranges of one family, so one length
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * A range a licence may hold: `address/prefix`, or a bare address (a /32 or /128), no wider than
 * PREFIX_LENGTHS allow, with no host bits set.
 */
export function parseRange(text: string): Parsed<RangeKey> {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const parsed = parseWritten(addressText);
  if (!parsed.ok) return { ok: false, problem: `${parsed.problem.replace('an IP address', 'a CIDR range')}` };
  const { family, bytes } = parsed.value;
  // Stryker disable next-line ConditionalExpression: isMapped is false of IPv4's four bytes
  if (family === 6 && isMapped(bytes)) {
    return { ok: false, problem: 'is an IPv4-mapped IPv6 range: write it as the IPv4 range it maps' };
  }
  const bounds = PREFIX_LENGTHS[family];
  if (prefixText !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) {
    return { ok: false, problem: 'is not a CIDR range: its prefix length must be a whole number' };
  }
  const prefixLength = prefixText === undefined ? bounds.max : Number(prefixText);
  if (prefixLength > bounds.max) {
    return { ok: false, problem: `is not a CIDR range: an IPv${family} prefix length is at most ${bounds.max}` };
  }
  if (prefixLength < bounds.min) {
    return {
      ok: false,
      problem: `is wider than a licence may be: an IPv${family} range is a /${bounds.min} or narrower`,
    };
  }
  const network = networkOf(bytes, prefixLength);
  if (!sameBytes(network, bytes)) {
    const meant = formatRange({ family, prefixLength, network });
    return { ok: false, problem: `has host bits set: the network of this prefix is ${meant}` };
  }
  // Stryker disable next-line ConditionalExpression: networks of two families differ in length, which sameBytes refuses
  const reserved = RESERVED_NETWORKS.find((r) => r.family === family && within({ family, prefixLength, network }, r));
  if (reserved) {
    return {
      ok: false,
      problem: `is in ${formatRange(reserved)}, ${reserved.what}: no reader's request comes from it`,
    };
  }
  return { ok: true, value: { family, prefixLength, network } };
}

/**
 * Networks no reader's request comes from: this host, loopback and link-local addresses. A paywall
 * that asked about one would be asking about itself or a proxy beside it (one that forgot to pass
 * the reader's address on), and a licence holding it would open to everyone. Private networks stay
 * open to licences: an intranet's paywall sees its readers by them.
 */
const RESERVED_NETWORKS: readonly (RangeKey & { what: string })[] = [
  ['0.0.0.0/8', 'this network'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['::/128', 'the unspecified address'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link-local'],
].map(([text, what]) => ({ ...reservedKey(text as string), what: what as string }));

function reservedKey(text: string): RangeKey {
  const [address, prefix] = text.split('/') as [string, string];
  const parsed = parseWritten(address);
  // Stryker disable next-line ConditionalExpression,StringLiteral: the reserved networks above all parse; a guard
  if (!parsed.ok) throw new Error(`${text} is no range`);
  return { family: parsed.value.family, prefixLength: Number(prefix), network: parsed.value.bytes };
}

/** Whether `range` lies inside `outer` (the same family), or holds it: they overlap at all. */
function within(range: RangeKey, outer: RangeKey): boolean {
  const shorter = Math.min(range.prefixLength, outer.prefixLength);
  return sameBytes(networkOf(range.network, shorter), networkOf(outer.network, shorter));
}

/** An address's text: dotted decimal, or RFC 5952 (lower case, the longest run of zero groups as ::, a mapped IPv4 address dotted). */
export function formatAddress({ family, bytes }: Address): string {
  if (family === 4) return [...bytes].join('.');
  // RFC 5952 section 5: an IPv4-mapped address ends in the IPv4 address, dotted.
  if (isMapped(bytes)) return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  // Written group by group, not by arrays mapped, sliced and joined: the check by network writes
  // one on every call, and those cost 0.87 µs an address where this costs 0.14.
  const words: number[] = [];
  // Stryker disable next-line EqualityOperator: a ninth word (i = 16, past the bytes, so 0) is read by no loop below
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i] as number) << 8) | (bytes[i + 1] as number));
  let bestStart = -1;
  let bestLength = 1;
  // Stryker disable next-line EqualityOperator: words[8] is undefined, not 0, and steps past the end
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: words[8] is undefined, not 0, and ends the run
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  let text = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      text += '::';
      i += bestLength - 1;
    } else {
      text += (i === 0 || i === bestStart + bestLength ? '' : ':') + (words[i] as number).toString(16);
    }
  }
  return text;
}

/** A range's one written form: `network/prefix`. */
export function formatRange(range: RangeKey): string {
  return `${formatAddress({ family: range.family, bytes: range.network })}/${range.prefixLength}`;
}

/**
 * The keys an address is looked up by: its network at each of `prefixLengths` (ascending), by
 * default every prefix length a range of its family may have; narrowest last.
 */
export function addressKeys(address: Address, prefixLengths?: readonly number[]): RangeKey[] {
  const { family, bytes } = address;
  if (prefixLengths)
    return prefixLengths.map((prefixLength) => ({ family, prefixLength, network: networkOf(bytes, prefixLength) }));
  const { min, max } = PREFIX_LENGTHS[family];
  const keys: RangeKey[] = [];
  for (let prefixLength = min; prefixLength <= max; prefixLength++) {
    keys.push({ family, prefixLength, network: networkOf(bytes, prefixLength) });
  }
  return keys;
}

/**
 * Multi-label public suffixes under which anyone may register a name (ICANN's section of the
 * Public Suffix List, the common ones) and hosting platforms that give every customer a
 * subdomain (its private section): a licence for any of them would admit strangers.
 */
export const PUBLIC_SUFFIXES: ReadonlySet<string> = new Set([
  ...['co', 'ac', 'gov', 'org', 'ltd', 'plc', 'me', 'net', 'sch', 'nhs', 'police', 'mod'].map((s) => `${s}.uk`),
  ...['com', 'net', 'org', 'edu', 'gov', 'asn', 'id'].map((s) => `${s}.au`),
  ...['co', 'ac', 'org', 'govt', 'net', 'school', 'geek'].map((s) => `${s}.nz`),
  ...['co', 'ac', 'ne', 'or', 'go', 'ed', 'lg', 'ad', 'gr'].map((s) => `${s}.jp`),
  ...['co', 'ac', 'org', 'gov', 'net', 'edu'].map((s) => `${s}.za`),
  ...['com', 'net', 'org', 'gov', 'edu', 'art', 'blog'].map((s) => `${s}.br`),
  ...['com', 'net', 'org', 'edu', 'gov', 'ac'].map((s) => `${s}.cn`),
  ...['co', 'net', 'org', 'ac', 'edu', 'gov', 'res', 'firm', 'gen', 'ind'].map((s) => `${s}.in`),
  ...['co', 'ac', 'or', 'go', 'ne', 're'].map((s) => `${s}.kr`),
  ...['com', 'org', 'edu', 'gob', 'net'].map((s) => `${s}.mx`),
  ...['com', 'edu', 'gob', 'org', 'net'].map((s) => `${s}.ar`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.sg`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.hk`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.tw`),
  ...['co', 'ac', 'org', 'gov', 'net'].map((s) => `${s}.il`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.tr`),
  ...['co', 'ac', 'or', 'gv'].map((s) => `${s}.at`),
  ...['com', 'edu', 'gob', 'org', 'nom'].map((s) => `${s}.es`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.pl`),
  ...['co', 'ac', 'or', 'go'].map((s) => `${s}.id`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.my`),
  ...['co', 'ac', 'or', 'go', 'in'].map((s) => `${s}.th`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.ua`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.ph`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.sa`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.eg`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.pk`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.ng`),
  ...['co', 'ac', 'or', 'go', 'ne'].map((s) => `${s}.ke`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.co`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.pe`),
  ...['com', 'edu', 'gov', 'org', 'net'].map((s) => `${s}.vn`),
  'eu.org',
  'gov.ie',
  'gc.ca',
  'gouv.fr',
  ...['github.io', 'gitlab.io', 'herokuapp.com', 'blogspot.com', 'appspot.com', 'netlify.app', 'vercel.app'],
  ...['pages.dev', 'workers.dev', 'web.app', 'firebaseapp.com', 'azurewebsites.net', 'cloudfront.net'],
  ...['amazonaws.com', 'wordpress.com', 'wixsite.com', 'squarespace.com', 'myshopify.com', 'glitch.me'],
]);

/**
 * Mail providers anyone may take an address at: a licence by such a domain would admit the public.
 * (Access by a domain rests on the website having checked that the reader owns the address.)
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  ...['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'hotmail.co.uk', 'live.com', 'msn.com'],
  ...['yahoo.com', 'yahoo.co.uk', 'ymail.com', 'aol.com', 'icloud.com', 'me.com', 'mac.com', 'proton.me'],
  ...['protonmail.com', 'pm.me', 'tutanota.com', 'zoho.com', 'mail.com', 'gmx.com', 'gmx.net', 'gmx.de'],
  ...['web.de', 't-online.de', 'orange.fr', 'free.fr', 'laposte.net', 'libero.it', 'mail.ru', 'yandex.ru'],
  ...['yandex.com', 'qq.com', '163.com', '126.com', 'naver.com', 'fastmail.com', 'hey.com', 'seznam.cz'],
]);

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A domain name as a licence writes one (lower case, optionally after `*.`), whatever it names. */
function parseDomainName(text: string): Parsed<string> {
  const lower = text.toLowerCase();
  const wildcard = lower.startsWith('*.');
  const written = wildcard ? lower.slice(2) : lower;
  // domainToASCII answers '' for what IDNA cannot convert, which the label rule then refuses.
  const name = /^[\x00-\x7f]*$/.test(written) ? written : domainToASCII(written);
  if (name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) {
    return {
      ok: false,
      problem:
        'is not a domain name: letters, digits and hyphens in dot-separated labels, optionally after *. (an internationalised name in its xn-- form)',
    };
  }
  return { ok: true, value: wildcard ? `*.${name}` : name };
}

/**
 * The domains a search for the licences of a domain asks for: those that admit a reader at it
 * (itself, and the wildcard of each of its parents, as `domainKeys`) and those that admit the
 * readers below it (its own wildcard), so that `uni.example` finds a licence of `*.uni.example`.
 * A wildcard asked for (`*.uni.example`) finds licences naming it as written.
 */
export function licenceSearchKeys(text: string): Parsed<string[]> {
  const written = parseDomainName(text);
  if (!written.ok) return written;
  const domain = written.value;
  return { ok: true, value: domain.startsWith('*.') ? [domain] : [...domainKeys(domain), `*.${domain}`] };
}

/**
 * A domain a licence may hold, in its one written form (lower case, no final dot): `acme.com`
 * (that domain exactly) or `*.acme.com` (every domain below it, not itself).
 */
export function parseLicenceDomain(text: string): Parsed<string> {
  const written = parseDomainName(text);
  if (!written.ok) return written;
  const wildcard = written.value.startsWith('*.');
  const name = wildcard ? written.value.slice(2) : written.value;
  if (!name.includes('.') || PUBLIC_SUFFIXES.has(name)) {
    return {
      ok: false,
      problem: `${wildcard ? 'is the wildcard of' : 'is'} a public suffix, under which anyone may register a name: name the organisation's own domain`,
    };
  }
  if (FREE_MAIL_DOMAINS.has(name)) {
    return {
      ok: false,
      problem: "is a mail provider anyone may take an address at: name the organisation's own domain",
    };
  }
  return { ok: true, value: wildcard ? `*.${name}` : name };
}

/**
 * The keys a reader's email domain finds licences by: the domain itself, and the wildcard of each
 * of its parents (`x.acme.com` → `x.acme.com`, `*.acme.com`, `*.com`).
 */
export function domainKeys(emailDomain: string): string[] {
  const domain = emailDomain.toLowerCase();
  const keys = [domain];
  for (let dot = domain.indexOf('.'); dot !== -1; dot = domain.indexOf('.', dot + 1)) {
    keys.push(`*${domain.slice(dot)}`);
  }
  return keys;
}

/** The problems of a licence's ranges and domains as sent, each at its element, a repeat included. */
export function siteTermProblems(
  name: 'ipRanges' | 'emailDomains',
  values: readonly unknown[],
  pointer = `/data/attributes/${name}`,
): { pointer: string; detail: string }[] {
  const problems: { pointer: string; detail: string }[] = [];
  const seen = new Map<string, number>();
  values.forEach((value, i) => {
    if (typeof value !== 'string') return;
    const parsed = name === 'ipRanges' ? parseRange(value) : parseLicenceDomain(value);
    if (!parsed.ok) {
      problems.push({ pointer: `${pointer}/${i}`, detail: parsed.problem });
      return;
    }
    const written = typeof parsed.value === 'string' ? parsed.value : formatRange(parsed.value);
    const first = seen.get(written);
    if (first !== undefined)
      problems.push({ pointer: `${pointer}/${i}`, detail: `repeats element ${first} (${written})` });
    else seen.set(written, i);
  });
  return problems;
}

/** The ranges in their written form; throws on one `siteTermProblems` refuses (checked before). */
export function normalRanges(values: readonly string[]): string[] {
  return values.map((value) => {
    const parsed = parseRange(value);
    if (!parsed.ok) throw new Error(`unchecked range ${value}`);
    return formatRange(parsed.value);
  });
}

/** The domains in their written form; throws on one `siteTermProblems` refuses (checked before). */
export function normalDomains(values: readonly string[]): string[] {
  return values.map((value) => {
    const parsed = parseLicenceDomain(value);
    if (!parsed.ok) throw new Error(`unchecked domain ${value}`);
    return parsed.value;
  });
}

/** The key a stored range (in its written form) is kept under. */
export function rangeKeyOf(written: string): RangeKey {
  const parsed = parseRange(written);
  if (!parsed.ok) throw new Error(`a stored range is not one: ${written}`);
  return parsed.value;
}
