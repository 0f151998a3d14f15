/**
 * Site licences as every adapter keeps them: the keys their ranges and domains are found by
 * (site_ranges, site_domains, migration 31), derived from the terms a subscription holds, and the
 * reads that find the active licences of an address or of a reader's domain. See
 * domain/site-licence.ts for why a range is a key and an address many.
 */
import type { ActiveLicence } from '../../domain/entitlement.js';
import {
  addressKeys,
  PREFIX_LENGTHS,
  rangeKeyOf,
  type Address,
  type Family,
  type RangeKey,
} from '../../domain/site-licence.js';
import type { Resource, SubscriptionValues } from '../../domain/subscription.js';
import { join, raw, sql, type Sql } from './builder.js';
import { seconds, type Row } from './rows.js';
import { activeSubscriptionsOfUser, statusCondition } from './subscriptions.js';

/** A row of site_ranges, less the subscription it belongs to. */
export interface RangeRow {
  prefixLength: number;
  network: Buffer;
  family: number;
}

type SiteTerms = Pick<SubscriptionValues, 'ipRanges' | 'emailDomains'>;

/** The keys a licence's ranges are kept under. */
export function rangeRowsOf(terms: SiteTerms): RangeRow[] {
  return terms.ipRanges.map((written) => {
    const { family, prefixLength, network } = rangeKeyOf(written);
    return { family, prefixLength, network: Buffer.from(network) };
  });
}

/** Whether writing these terms writes any key: only then do the kept keys (licensed-domains.ts) go. */
export function writesSiteKeys(terms: SiteTerms): boolean {
  return terms.ipRanges.length > 0 || terms.emailDomains.length > 0;
}

/** Whether a write changes the keys a licence is found by: only then are they written again. */
export function siteKeysChange(before: SiteTerms | undefined, after: SiteTerms): boolean {
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);
  if (!before) return after.ipRanges.length > 0 || after.emailDomains.length > 0;
  return !same(before.ipRanges, after.ipRanges) || !same(before.emailDomains, after.emailDomains);
}

/**
 * What an active licence gives, read with it: its own resource, or else its product's (products
 * are a reference table on Citus, so this routes wherever the subscription does).
 */
export const LICENCE_COLUMNS = raw(`s.id, s.user_id, s.product_id, s.date_ended,
  coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource`);

/**
 * The licences active at `at` (a value as the dialect takes it) whose ranges hold an address with
 * these keys: the ranges' primary key probed once per key, each licence then read by its key. A
 * licence comes once for each of its ranges that holds the address (`distinctLicences` keeps one):
 * asking the database for distinct rows cost it a sort on every call.
 *
 * On PostgreSQL the keys are a list of values joined to the ranges, so that each is an index-only
 * probe: written as `(prefix_length, network) IN (…)` they became a bitmap of every probe and a
 * visit to the table's pages (the measurement is in the commit that made the change). On SQLite
 * each key is a probe of its own, joined by UNION ALL (rangesOfKeys).
 */
export function licencesOfNetwork(dialect: 'sqlite' | 'postgres', keys: readonly RangeKey[], at: unknown): Sql {
  const ranges = dialect === 'postgres' ? rangesProbed(keys) : rangesOfKeys(keys);
  return sql`SELECT ${LICENCE_COLUMNS} FROM ${ranges}
    JOIN subscriptions s ON s.user_id = r.user_id AND s.id = r.subscription_id
    WHERE ${statusCondition('s', 'active', at)}`;
}

/**
 * SQLite's ranges of an address, as `r`: an equality on the ranges' primary key for each key, the
 * probes joined by UNION ALL, which SQLite flattens into one join of the subscriptions each. As
 * `(prefix_length, network) IN (…)` it first built the list into a table of its own on every
 * call: 8.1 µs against 7.1 for four keys, 6.3 against 4.9 for one, in-process at 50,000 ranges.
 */
function rangesOfKeys(keys: readonly RangeKey[]): Sql {
  // The prefix lengths are numbers of ours, spliced as text so that a prepared statement has one
  // shape per set of lengths; the networks are parameters. A length is spliced as `24 + 0`, which
  // the planner's samples (sqlite_stat4, after an ANALYZE) do not estimate: as a bare literal, a
  // length no range had when they were taken was estimated at no rows and probed alone, without its
  // network, and so read every range of that length on every check once some were written.
  const probes = keys.map(
    (key) => sql`SELECT r.user_id, r.subscription_id FROM site_ranges r
      WHERE r.prefix_length = ${raw(`${key.prefixLength} + 0`)} AND r.network = ${Buffer.from(key.network)}`,
  );
  return sql`(${join(probes, ' UNION ALL ')}) r`;
}

/** PostgreSQL's ranges of an address, as `r`: its keys as a list of values, each joined to the ranges' primary key. */
function rangesProbed(keys: readonly RangeKey[]): Sql {
  // The prefix lengths are spliced as text, as in rangesOfKeys; the networks are parameters.
  const rows = keys.map((key) => sql`(${raw(String(key.prefixLength))}, ${Buffer.from(key.network)}::bytea)`);
  return sql`(VALUES ${join(rows, ', ')}) k (prefix_length, network)
    JOIN site_ranges r ON r.prefix_length = k.prefix_length AND r.network = k.network`;
}

/** Each licence of these rows once, in the order first read. */
export function distinctLicences(rows: readonly Row[]): ActiveLicence[] {
  const licences = new Map<string, ActiveLicence>();
  for (const row of rows) {
    const id = String(row.id);
    if (!licences.has(id)) licences.set(id, toActiveLicence(row));
  }
  return [...licences.values()];
}

/**
 * A statement of an address's keys (licencesOfNetwork or licenceKeysOfNetwork) rendered once for a
 * family and the prefix lengths it probes, with where each call's values go. Its text depends on
 * those alone, as the prefix lengths are spliced in; building and rendering its probes on every
 * call cost as much as the access check's whole budget. `values` lays out the networks of keys of
 * the same lengths, in the same order, and the instant.
 */
export interface NetworkStatement {
  text: string;
  values(keys: readonly RangeKey[], at: unknown): unknown[];
}

export function networkStatement(
  dialect: 'sqlite' | 'postgres',
  template: readonly RangeKey[],
  build: (keys: readonly RangeKey[], at: unknown) => Sql,
): NetworkStatement {
  const AT = { at: true };
  const { text, values } = build(template, AT).render(dialect);
  // Each value of the template is the instant or a network, the networks in the order of the keys.
  let network = 0;
  const layout = values.map((value) => (value === AT ? -1 : network++));
  if (network !== template.length)
    throw new Error(`the statement of ${template.length} keys holds ${network} networks`);
  return {
    text,
    values: (keys, at) => layout.map((slot) => (slot === -1 ? at : Buffer.from((keys[slot] as RangeKey).network))),
  };
}

/**
 * The prefix lengths some range is kept under, each as `family/length` (`4/24`): an address is
 * probed at those alone. Each length is found by one probe of the ranges' key for the next one up
 * (a skip over the key), not by reading every range: the processes read this again every few
 * seconds, and a read of every range grows with the table, where the probes grow only with the
 * lengths in use. A length says its family
 * (IPv4's are 8 to 32, IPv6's 32 to 128) but for 32, IPv4's narrowest and IPv6's widest, which
 * counts for both: asking which would read every /32 range, while an address probed at a length
 * no range of its family uses costs one probe that finds nothing.
 */
export const RANGE_PREFIX_LENGTHS = `WITH RECURSIVE lengths (prefix_length) AS (
    SELECT min(prefix_length) FROM site_ranges
    UNION ALL
    SELECT (SELECT min(r.prefix_length) FROM site_ranges r WHERE r.prefix_length > lengths.prefix_length)
    FROM lengths WHERE lengths.prefix_length IS NOT NULL)
  SELECT CASE WHEN prefix_length <= 32 THEN '4/' ELSE '6/' END || prefix_length FROM lengths
  WHERE prefix_length IS NOT NULL
  UNION ALL
  SELECT '6/32' FROM lengths WHERE prefix_length = 32`;

/**
 * The statements of an address's keys, one made for each family and set of prefix lengths in use
 * (`make`, from keys of those lengths) and kept: ranges are written rarely and use a few lengths,
 * so an address is probed at the lengths some range uses rather than at each of its 25 or 97, and
 * only those keys are made. `of` answers the keys to probe with their statement, or undefined
 * when no range uses any length of the address's family.
 */
export function networkStatements<S>(make: (template: readonly RangeKey[]) => S) {
  const made = new Map<string, S>();
  return {
    of(address: Address, lengths: ReadonlySet<string>): { probed: RangeKey[]; statement: S } | undefined {
      const { prefixLengths, name } = lengthsInUse(lengths)[address.family];
      if (prefixLengths.length === 0) return undefined;
      const probed = addressKeys(address, prefixLengths);
      let statement = made.get(name);
      if (statement === undefined) {
        // The sets in use change with the ranges written: those of the past are let go at times.
        if (made.size >= 64) made.clear();
        made.set(name, (statement = make(probed)));
      }
      return { probed, statement };
    },
  };
}

/** The prefix lengths of each family in a set of `family/length`, ascending, and the name of the statement probing them. */
type LengthsInUse = Record<Family, { prefixLengths: number[]; name: string }>;

/** Worked out once for each set the kept lengths answer (a new set after every change). */
const LENGTHS_IN_USE = new WeakMap<ReadonlySet<string>, LengthsInUse>();

function lengthsInUse(lengths: ReadonlySet<string>): LengthsInUse {
  let found = LENGTHS_IN_USE.get(lengths);
  if (found === undefined) {
    const ofFamily = (family: Family) => {
      const { min, max } = PREFIX_LENGTHS[family];
      const prefixLengths: number[] = [];
      for (let length = min; length <= max; length++)
        if (lengths.has(`${family}/${length}`)) prefixLengths.push(length);
      return { prefixLengths, name: `${family}:${prefixLengths.join(',')}` };
    };
    found = { 4: ofFamily(4), 6: ofFamily(6) };
    LENGTHS_IN_USE.set(lengths, found);
  }
  return found;
}

/** The licences whose ranges hold an address with these keys, as (user, subscription): Citus's first read. */
export function licenceKeysOfNetwork(keys: readonly RangeKey[]): Sql {
  return sql`SELECT r.user_id, r.subscription_id FROM ${rangesProbed(keys)}`;
}

/**
 * The licences active at `at` among these (user, subscription) pairs: Citus's second read, which
 * names the users, so that it goes to their shards alone.
 */
export function activeLicencesAmong(pairs: readonly { userId: string; subscriptionId: string }[], at: unknown): Sql {
  const users = [...new Set(pairs.map((p) => p.userId))];
  const ids = pairs.map((p) => p.subscriptionId);
  return sql`SELECT ${LICENCE_COLUMNS} FROM subscriptions s
    WHERE s.user_id = ANY(${users}::bigint[]) AND s.id = ANY(${ids}::bigint[])
      AND ${statusCondition('s', 'active', at)}`;
}

/**
 * The licences active at `at` whose domains are among `domains` (the keys of a reader's email
 * domain that the process knows to be licensed): each a probe of the domains' primary key.
 */
export function licencesOfDomains(dialect: 'sqlite' | 'postgres', domains: unknown, at: unknown): Sql {
  return sql`SELECT DISTINCT ${LICENCE_COLUMNS} FROM site_domains d
    JOIN subscriptions s ON s.user_id = d.user_id AND s.id = d.subscription_id
    WHERE ${domainsCondition(dialect, domains)} AND ${statusCondition('s', 'active', at)}`;
}

/** The licences whose domains are among `domains`, as (user, subscription): Citus's first read. */
export function licenceKeysOfDomains(domains: unknown): Sql {
  return sql`SELECT DISTINCT d.user_id, d.subscription_id FROM site_domains d
    WHERE ${domainsCondition('postgres', domains)}`;
}

function domainsCondition(dialect: 'sqlite' | 'postgres', domains: unknown): Sql {
  return dialect === 'sqlite'
    ? sql`d.domain IN (SELECT value FROM json_each(${domains}))`
    : sql`d.domain = ANY (${domains}::text[])`;
}

/**
 * The access check's read once some licence names a domain: the reader's email domain beside
 * their subscriptions active at `at`, so that the domain costs no statement of its own; one row
 * with no subscription for a reader with none, no row for no such user. On PostgreSQL each
 * subscription has its own resource (the caller applies its product's), read from `subscriptions`.
 */
export function readerWithActiveSubscriptions(
  dialect: 'sqlite' | 'postgres',
  user: unknown,
  at: unknown,
  subscriptions: Sql = raw('subscriptions'),
): Sql {
  if (dialect === 'sqlite') {
    return sql`SELECT u.email_domain, s.id, s.product_id, s.date_ended,
        coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
      FROM users u LEFT JOIN subscriptions s ON s.user_id = u.id AND ${statusCondition('s', 'active', at)}
      WHERE u.id = ${user}`;
  }
  return sql`SELECT u.email_domain, s.* FROM users u
    LEFT JOIN LATERAL (${activeSubscriptionsOfUser(user, at, { from: subscriptions, ownResource: true })}) s ON true
    WHERE u.id = ${user}`;
}

/** Every domain some licence names, active or not: what a process keeps to tell when none can match. */
export const LICENSED_DOMAINS = 'SELECT DISTINCT domain FROM site_domains';

export function toActiveLicence(row: Row): ActiveLicence {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    productId: row.product_id as string | null,
    resource: row.resource as Resource | null,
    dateEnded: row.date_ended === null ? null : seconds(row.date_ended),
  };
}
