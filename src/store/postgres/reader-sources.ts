/**
 * The access check's read on PostgreSQL. While no licence names a domain, it is the check of the
 * reader's own subscriptions alone (subscriptions.ts), as before licences by domain. Once some
 * licence does, the reader's email domain is read with their subscriptions in one statement, and
 * the licences of that domain are read only when it or a parent's wildcard is among the domains
 * kept (licensed-domains.ts): most readers' domains are licensed to nobody. The licences of their
 * seats are read only for a reader among the seat holders kept: most readers hold none.
 */
import { domainKeys } from '../../domain/site-licence.js';
import type { ActiveLicence } from '../../domain/entitlement.js';
import type { SiteLicenceStore, SubscriptionStore } from '../port.js';
import { raw } from '../sql/builder.js';
import { instantValue } from '../sql/rows.js';
import { licencesOfSeatHolder, SEAT_KEYS_OF_HOLDER } from '../sql/seats.js';
import { readerWithActiveSubscriptions, toActiveLicence } from '../sql/site-licences.js';
import type { PostgresDatabase } from './database.js';
import type { KeptSet } from './licensed-domains.js';
import type { ProductResources } from './product-resources.js';
import { activeAmong, licencesOfDomains } from './site-licences.js';
import { USERS_SUBSCRIPTIONS, withProductResources } from './subscriptions.js';

export const READER_WITH_ACTIVE = readerWithActiveSubscriptions(
  'postgres',
  raw('$1'),
  raw('$2'),
  USERS_SUBSCRIPTIONS,
).render('postgres').text;

/** On Citus, as subscriptions.ts reads them there: no fence, the user's worker plans with the values. */
const READER_WITH_ACTIVE_CITUS = readerWithActiveSubscriptions('postgres', raw('$1'), raw('$2')).render(
  'postgres',
).text;

const OF_SEAT_HOLDER = licencesOfSeatHolder(raw('$1'), raw('$2')).render('postgres').text;

/**
 * The licences active at `now` of which the reader holds a seat: on a single server one statement;
 * on Citus their keys on the holder's shard, then the licences on their owners' shards alone.
 */
async function licencesOfSeats(database: PostgresDatabase, userId: string, now: number): Promise<ActiveLicence[]> {
  const at = instantValue('postgres', now) as Date;
  if (!database.citus) {
    return (await database.preparedRows('licences-of-seat-holder', OF_SEAT_HOLDER, [userId, at])).map(toActiveLicence);
  }
  return activeAmong(database, await database.preparedRows('seat-keys-of-holder', SEAT_KEYS_OF_HOLDER, [userId]), at);
}

export function postgresReaderSources(
  database: PostgresDatabase,
  domains: KeptSet,
  holders: KeptSet,
  products: ProductResources,
  { activeOf: activeSubscriptionsOf }: Pick<SubscriptionStore, 'activeOf'>,
): Pick<SiteLicenceStore, 'readerSourcesOf'> {
  const bySeat = async (userId: string, now: number) =>
    (await holders.current()).has(userId) ? licencesOfSeats(database, userId, now) : [];
  return {
    async readerSourcesOf(userId, now) {
      const licensed = await domains.current();
      if (licensed.size === 0) {
        const own = await activeSubscriptionsOf(userId, now);
        return own && { own, byDomain: [], bySeat: await bySeat(userId, now) };
      }
      const at = instantValue('postgres', now);
      const rows = await (database.citus
        ? database.preparedRows('citus-reader-with-active', READER_WITH_ACTIVE_CITUS, [userId, at])
        : database.preparedRows('reader-with-active', READER_WITH_ACTIVE, [userId, at]));
      const [reader] = rows;
      if (!reader) return undefined;
      const own = await withProductResources(
        rows.filter((row) => row.id !== null),
        products,
      );
      const keys = domainKeys(reader.email_domain as string).filter((key) => licensed.has(key));
      return {
        own,
        byDomain: keys.length === 0 ? [] : await licencesOfDomains(database, keys, now),
        bySeat: await bySeat(userId, now),
      };
    },
  };
}
