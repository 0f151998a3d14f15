/**
 * The print run on PostgreSQL. On Citus each shard reads its users' subscriptions with their
 * holds and users beside them (co-located by user), and the coordinator merges the pages in
 * subscription order.
 */
import type { DeliveryStore } from '../port.js';
import { drawCountQueries, runPageQuery, toDelivery, toDrawCount } from '../sql/deliveries.js';
import type { PostgresDatabase } from './database.js';

export function postgresDeliveries(database: PostgresDatabase): DeliveryStore {
  return {
    async listDeliveries(run, query) {
      return (await database.rows(runPageQuery(run, query, 'postgres'))).map(toDelivery);
    },
    async countDraw(run) {
      const counts = [];
      for (const query of drawCountQueries(run, 'postgres'))
        counts.push(...(await database.rows(query)).map(toDrawCount));
      return counts;
    },
  };
}
