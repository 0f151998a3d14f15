/**
 * Site licences on PostgreSQL: their keys written with the subscription (in its transaction), and
 * the reads that find the active ones of an address and of a reader. On a single server each read
 * is one statement, the keys joined to the licences. On Citus the keys are reference tables and
 * the subscriptions sharded by user, which one statement could only join on every shard: the keys
 * are read first (on the user's shard for a reader, where a reference table has a copy), then the
 * licences they name, by their owners' ids, on those owners' shards alone.
 */
import type pg from 'pg';
import type { ActiveLicence } from '../../domain/entitlement.js';
import type { RangeKey } from '../../domain/site-licence.js';
import type { SubscriptionValues } from '../../domain/subscription.js';
import type { SiteLicenceStore } from '../port.js';
import { raw } from '../sql/builder.js';
import { instantValue } from '../sql/rows.js';
import {
  activeLicencesAmong,
  licenceKeysOfNetwork,
  licenceKeysOfDomains,
  licencesOfDomains as licencesOfDomainsQuery,
  distinctLicences,
  licencesOfNetwork,
  networkStatement,
  networkStatements,
  rangeRowsOf,
  toActiveLicence,
} from '../sql/site-licences.js';
import { preparedName, type PostgresDatabase } from './database.js';
import { SITE_KEYS_CHANNEL, type KeptSet } from './licensed-domains.js';
import type { Row } from '../sql/rows.js';

/** The statements that remove the keys of a deleted subscription (`d`, see database.deleteRow; $1 its user). */
export const DELETE_SUBSCRIPTION_SITE_KEYS = [
  'DELETE FROM site_ranges WHERE user_id = $1 AND subscription_id IN (SELECT id FROM d)',
  'DELETE FROM site_domains WHERE user_id = $1 AND subscription_id IN (SELECT id FROM d)',
];

/** The statements that remove the keys of every licence of an erased user (`d`). */
export const DELETE_USER_SITE_KEYS = [
  'DELETE FROM site_ranges WHERE user_id IN (SELECT id FROM d)',
  'DELETE FROM site_domains WHERE user_id IN (SELECT id FROM d)',
];

/**
 * Writes a licence's keys anew on the write's connection, inside its transaction: the old ones
 * deleted first, each statement apart, as a deletion and an insertion of the same key in one
 * statement would collide.
 */
export async function writeSiteKeys(
  client: pg.ClientBase,
  userId: string,
  subscriptionId: string,
  terms: Pick<SubscriptionValues, 'ipRanges' | 'emailDomains'>,
): Promise<void> {
  const keys = [userId, subscriptionId];
  await client.query('DELETE FROM site_ranges WHERE user_id = $1 AND subscription_id = $2', keys);
  await client.query('DELETE FROM site_domains WHERE user_id = $1 AND subscription_id = $2', keys);
  await insertSiteKeys(client, [{ userId, id: subscriptionId, ...terms }]);
}

/** A licence whose keys are written: its owner, its id and its terms. */
type Licence = Pick<SubscriptionValues, 'ipRanges' | 'emailDomains'> & { userId: string; id: string };

/**
 * Inserts the keys of licences that have none yet (new ones, an import's batch): one statement a
 * table whatever their number. Keys written notify every process keeping the licensed domains and
 * the ranges' prefix lengths (licensed-domains.ts) at the commit; the writer forgets its own after it.
 */
export async function insertSiteKeys(client: pg.ClientBase, licences: readonly Licence[]): Promise<void> {
  const ranges = licences.flatMap((licence) => rangeRowsOf(licence).map((range) => ({ ...range, licence })));
  if (ranges.length > 0) {
    await client.query(
      `INSERT INTO site_ranges (prefix_length, network, family, user_id, subscription_id)
       SELECT * FROM unnest($1::smallint[], $2::bytea[], $3::smallint[], $4::bigint[], $5::bigint[])`,
      [
        ranges.map((r) => r.prefixLength),
        ranges.map((r) => r.network),
        ranges.map((r) => r.family),
        ranges.map((r) => r.licence.userId),
        ranges.map((r) => r.licence.id),
      ],
    );
  }
  const domains = licences.flatMap((licence) => licence.emailDomains.map((domain) => ({ domain, licence })));
  if (domains.length > 0) {
    await client.query(
      'INSERT INTO site_domains (domain, user_id, subscription_id) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])',
      [domains.map((d) => d.domain), domains.map((d) => d.licence.userId), domains.map((d) => d.licence.id)],
    );
  }
  if (ranges.length > 0 || domains.length > 0) await client.query(`NOTIFY ${SITE_KEYS_CHANNEL}`);
}

/** Citus's second read: the active licences among those the keys named, on their owners' shards. */
export async function activeAmong(database: PostgresDatabase, keys: Row[], at: Date): Promise<ActiveLicence[]> {
  if (keys.length === 0) return [];
  const pairs = keys.map((row) => ({ userId: String(row.user_id), subscriptionId: String(row.subscription_id) }));
  // The read names the users and the ids apart (each a list the shards are pruned by), so it may
  // find a user's other subscription of a named id: only the pairs named are the licences.
  const named = new Set(pairs.map((p) => `${p.userId}/${p.subscriptionId}`));
  return (await database.rows(activeLicencesAmong(pairs, at)))
    .map(toActiveLicence)
    .filter((licence) => named.has(`${licence.userId}/${licence.id}`));
}

const OF_DOMAINS = licencesOfDomainsQuery('postgres', raw('$1'), raw('$2')).render('postgres').text;
const KEYS_OF_DOMAINS = licenceKeysOfDomains(raw('$1')).render('postgres').text;

/** The licences active at `now` whose domains are among `domains`: on Citus, from the reference table, then the owners' shards. */
export async function licencesOfDomains(
  database: PostgresDatabase,
  domains: readonly string[],
  now: number,
): Promise<ActiveLicence[]> {
  const at = instantValue('postgres', now) as Date;
  if (!database.citus) {
    return (await database.preparedRows('licences-of-domains', OF_DOMAINS, [domains, at])).map(toActiveLicence);
  }
  return activeAmong(database, await database.preparedRows('licence-keys-of-domains', KEYS_OF_DOMAINS, [domains]), at);
}

export function postgresSiteLicences(
  database: PostgresDatabase,
  prefixLengths: KeptSet,
): Omit<SiteLicenceStore, 'readerSourcesOf'> {
  // Prepared once per family and set of prefix lengths: parsing and planning the probes on every
  // call would cost more than running them. Each probe is an equality, so the plan kept for every
  // address is the one made for the first.
  const build = database.citus
    ? (keys: readonly RangeKey[]) => licenceKeysOfNetwork(keys)
    : (keys: readonly RangeKey[], at: unknown) => licencesOfNetwork('postgres', keys, at);
  const statements = networkStatements((template) => {
    const { text, values } = networkStatement('postgres', template, build);
    return { name: preparedName('licences-of-network', text), text, values };
  });
  return {
    async ofNetwork(address, now) {
      const found = statements.of(address, await prefixLengths.current());
      if (!found) return [];
      const at = instantValue('postgres', now) as Date;
      const { name, text, values } = found.statement;
      const rows = await database.preparedRows(name, text, values(found.probed, at));
      return database.citus ? activeAmong(database, rows, at) : distinctLicences(rows);
    },
  };
}
