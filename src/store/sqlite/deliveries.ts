/**
 * The print run on SQLite.
 */
import type { DeliveryStore } from '../port.js';
import { drawCountQueries, runPageQuery, toDelivery, toDrawCount } from '../sql/deliveries.js';
import type { SqliteDatabase } from './database.js';

export function sqliteDeliveries(database: SqliteDatabase): DeliveryStore {
  return {
    async listDeliveries(run, query) {
      return database.all(runPageQuery(run, query, 'sqlite')).map(toDelivery);
    },
    async countDraw(run) {
      return drawCountQueries(run, 'sqlite').flatMap((query) => database.all(query).map(toDrawCount));
    },
  };
}
