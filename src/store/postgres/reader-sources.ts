/**
 * The access check's read on PostgreSQL. While no licence names a domain, it is the check of the
 * reader's own subscriptions alone (subscriptions.ts), as before licences by domain. Once some
 * licence does, the reader's email domain is read with their subscriptions in one statement, and
 * the licences of that domain are read only when it or a parent's wildcard is among the domains
 * kept (licensed-domains.ts): most readers' domains are licensed to nobody.
 */
import { domainKeys } from '../../domain/site-licence.js';
import type { SiteLicenceStore, SubscriptionStore } from '../port.js';
import { raw } from '../sql/builder.js';
import { instantValue } from '../sql/rows.js';
import { readerWithActiveSubscriptions } from '../sql/site-licences.js';
import type { PostgresDatabase } from './database.js';
import type { LicensedDomains } from './licensed-domains.js';
import type { ProductResources } from './product-resources.js';
import { licencesOfDomains } from './site-licences.js';
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

export function postgresReaderSources(
  database: PostgresDatabase,
  domains: LicensedDomains,
  products: ProductResources,
  { activeSubscriptionsOf }: Pick<SubscriptionStore, 'activeSubscriptionsOf'>,
): Pick<SiteLicenceStore, 'readerSourcesOf'> {
  return {
    async readerSourcesOf(userId, now) {
      const licensed = await domains.current();
      if (licensed.size === 0) {
        const own = await activeSubscriptionsOf(userId, now);
        return own && { own, byDomain: [] };
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
      return { own, byDomain: keys.length === 0 ? [] : await licencesOfDomains(database, keys, now) };
    },
  };
}
