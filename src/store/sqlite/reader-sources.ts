/**
 * The access check's read on SQLite. While no licence names a domain, it is the check of the
 * reader's own subscriptions alone (subscriptions.ts), as before licences by domain. Once some
 * licence does, the reader's email domain is read with their subscriptions in one statement, and
 * the licences of that domain are read only when it or a parent's wildcard is among the domains
 * kept (licensed-domains.ts): most readers' domains are licensed to nobody. The licences of
 * their seats are read only for a reader among the seat holders kept: most readers hold none.
 */
import { domainKeys } from '../../domain/site-licence.js';
import type { SiteLicenceStore, SubscriptionStore } from '../port.js';
import { raw } from '../sql/builder.js';
import type { Row } from '../sql/rows.js';
import { licencesOfSeatHolder } from '../sql/seats.js';
import { licencesOfDomains, readerWithActiveSubscriptions, toActiveLicence } from '../sql/site-licences.js';
import { toActiveSubscription } from '../sql/subscriptions.js';
import type { SqliteDatabase } from './database.js';
import { sqliteLicensedDomains, sqliteSeatHolders } from './licensed-domains.js';

export function sqliteReaderSources(
  database: SqliteDatabase,
  { activeOf: activeSubscriptionsOf }: Pick<SubscriptionStore, 'activeOf'>,
): Pick<SiteLicenceStore, 'readerSourcesOf'> {
  const domains = sqliteLicensedDomains(database);
  const holders = sqliteSeatHolders(database);
  const selectReader = database.statement(readerWithActiveSubscriptions('sqlite', raw('@user'), raw('@at'))).statement;
  const selectOfDomains = database.statement(licencesOfDomains('sqlite', raw('@domains'), raw('@at'))).statement;
  const selectOfSeats = database.statement(licencesOfSeatHolder(raw('@user'), raw('@at'))).statement;
  const licencesOfSeats = (userId: string, now: number) =>
    holders.current().has(userId) ? (selectOfSeats.all({ user: userId, at: now }) as Row[]).map(toActiveLicence) : [];
  return {
    async readerSourcesOf(userId, now) {
      const licensed = domains.current();
      if (licensed.size === 0) {
        const own = await activeSubscriptionsOf(userId, now);
        return own && { own, byDomain: [], bySeat: licencesOfSeats(userId, now) };
      }
      const rows = selectReader.all({ user: userId, at: now }) as Row[];
      const [reader] = rows;
      if (!reader) return undefined;
      const own = rows.filter((row) => row.id !== null).map(toActiveSubscription);
      const keys = domainKeys(reader.email_domain as string).filter((key) => licensed.has(key));
      const byDomain =
        keys.length === 0
          ? []
          : (selectOfDomains.all({ domains: JSON.stringify(keys), at: now }) as Row[]).map(toActiveLicence);
      return { own, byDomain, bySeat: licencesOfSeats(userId, now) };
    },
  };
}
