/**
 * Site licences on SQLite: their keys written with the subscription (in its transaction), and
 * the reads that find the active ones of an address and of a reader.
 */
import type { SubscriptionValues } from '../../domain/subscription.js';
import type { SiteLicenceStore } from '../port.js';
import {
  distinctLicences,
  licencesOfNetwork,
  networkStatement,
  networkStatements,
  rangeRowsOf,
} from '../sql/site-licences.js';
import type { SqliteDatabase } from './database.js';
import { sqliteLicensedDomains, sqliteRangePrefixLengths } from './licensed-domains.js';

/** Writes a licence's keys anew, inside the caller's transaction. */
export interface SqliteSiteKeys {
  write(userId: string, subscriptionId: string, terms: Pick<SubscriptionValues, 'ipRanges' | 'emailDomains'>): void;
}

/** The statements that remove the keys of a subscription (user id, id), run before it goes. */
export const DELETE_SUBSCRIPTION_SITE_KEYS = [
  'DELETE FROM site_ranges WHERE user_id = ? AND subscription_id = ?',
  'DELETE FROM site_domains WHERE user_id = ? AND subscription_id = ?',
];

/** The statements that remove the keys of every licence of a user (id), run before an erasure. */
export const DELETE_USER_SITE_KEYS = [
  'DELETE FROM site_ranges WHERE user_id = ?',
  'DELETE FROM site_domains WHERE user_id = ?',
];

export function sqliteSiteKeys(database: SqliteDatabase): SqliteSiteKeys {
  const { db } = database;
  const [removeRanges, removeDomains] = DELETE_SUBSCRIPTION_SITE_KEYS.map((text) => db.prepare(text));
  const insertRange = db.prepare(
    'INSERT INTO site_ranges (prefix_length, network, family, user_id, subscription_id) VALUES (?, ?, ?, ?, ?)',
  );
  const insertDomain = db.prepare('INSERT INTO site_domains (domain, user_id, subscription_id) VALUES (?, ?, ?)');
  const licensed = sqliteLicensedDomains(database);
  const prefixLengths = sqliteRangePrefixLengths(database);
  return {
    write(userId, subscriptionId, terms) {
      removeRanges?.run(userId, subscriptionId);
      removeDomains?.run(userId, subscriptionId);
      for (const range of rangeRowsOf(terms)) {
        insertRange.run(range.prefixLength, range.network, range.family, userId, subscriptionId);
      }
      for (const domain of terms.emailDomains) insertDomain.run(domain, userId, subscriptionId);
      // Within the transaction, which nothing else on this connection can read between.
      if (terms.emailDomains.length > 0) licensed.added();
      if (terms.ipRanges.length > 0) prefixLengths.added();
    },
  };
}

export function sqliteSiteLicences(database: SqliteDatabase): Omit<SiteLicenceStore, 'readerSourcesOf'> {
  const prefixLengths = sqliteRangePrefixLengths(database);
  const statements = networkStatements((template) => {
    const { text, values } = networkStatement('sqlite', template, (keys, at) => licencesOfNetwork('sqlite', keys, at));
    return { prepared: database.db.prepare(text), values };
  });
  return {
    async ofNetwork(address, now) {
      const found = statements.of(address, prefixLengths.current());
      if (!found) return [];
      const { prepared, values } = found.statement;
      return distinctLicences(prepared.all(...values(found.probed, now)) as Record<string, unknown>[]);
    },
  };
}
