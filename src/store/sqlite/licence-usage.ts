/**
 * The usage of site licences on SQLite: a batch added in one transaction, each count an upsert
 * that adds, dropped when its licence is no more.
 */
import type { LicenceUsageStore } from '../port.js';
import { inKeyOrder, toUsageCount, usageQuery } from '../sql/licence-usage.js';
import type { SqliteDatabase } from './database.js';

export function sqliteLicenceUsage(database: SqliteDatabase): LicenceUsageStore {
  const { db } = database;
  const add = db.prepare(`
    INSERT INTO licence_usage (user_id, subscription_id, month, via, checks)
    SELECT @user, @subscription, @month, @via, @count
    WHERE EXISTS (SELECT 1 FROM subscriptions WHERE user_id = @user AND id = @subscription)
    ON CONFLICT (user_id, subscription_id, month, via) DO UPDATE SET checks = checks + excluded.checks`);
  const licenceExists = db.prepare('SELECT 1 FROM subscriptions WHERE user_id = ? AND id = ?').pluck();
  return {
    async add(counts) {
      if (counts.length === 0) return;
      db.transaction(() => {
        for (const c of inKeyOrder(counts)) {
          add.run({ user: c.userId, subscription: c.subscriptionId, month: c.month, via: c.via, count: c.count });
        }
      }).immediate();
    },
    async ofLicence(userId, subscriptionId) {
      return db.transaction(() => {
        if (licenceExists.get(userId, subscriptionId) === undefined) return undefined;
        return database.all(usageQuery(userId, subscriptionId)).map(toUsageCount);
      })();
    },
  };
}
