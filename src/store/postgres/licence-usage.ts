/**
 * The usage of site licences on PostgreSQL: a batch added in one transaction. The licences still
 * there are read first, by their owners and ids (on Citus, their owners' shards alone), and only
 * their counts are added, each an upsert that adds; the rows in one order, so that two processes
 * adding at once never deadlock.
 */
import type { LicenceUsageStore } from '../port.js';
import { inKeyOrder, toUsageCount, usageQuery } from '../sql/licence-usage.js';
import type { PostgresDatabase } from './database.js';

export function postgresLicenceUsage(database: PostgresDatabase): LicenceUsageStore {
  return {
    async add(counts) {
      if (counts.length === 0) return;
      const users = [...new Set(counts.map((c) => c.userId))];
      const ids = [...new Set(counts.map((c) => c.subscriptionId))];
      await database.transaction(async (client) => {
        const { rows } = await client.query<{ user_id: string; id: string }>(
          'SELECT user_id, id FROM subscriptions WHERE user_id = ANY($1::bigint[]) AND id = ANY($2::bigint[])',
          [users, ids],
        );
        const there = new Set(rows.map((r) => `${r.user_id}/${r.id}`));
        const adding = inKeyOrder(counts.filter((c) => there.has(`${c.userId}/${c.subscriptionId}`)));
        if (adding.length === 0) return;
        await client.query(
          `INSERT INTO licence_usage (user_id, subscription_id, month, via, checks)
           SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[])
           ON CONFLICT (user_id, subscription_id, month, via) DO UPDATE SET checks = licence_usage.checks + excluded.checks`,
          [
            adding.map((c) => c.userId),
            adding.map((c) => c.subscriptionId),
            adding.map((c) => c.month),
            adding.map((c) => c.via),
            adding.map((c) => c.count),
          ],
        );
      });
    },
    async ofLicence(userId, subscriptionId) {
      const found = await database.rows('SELECT 1 FROM subscriptions WHERE user_id = $1 AND id = $2', [
        userId,
        subscriptionId,
      ]);
      if (found.length === 0) return undefined;
      return (await database.rows(usageQuery(userId, subscriptionId))).map(toUsageCount);
    },
  };
}
