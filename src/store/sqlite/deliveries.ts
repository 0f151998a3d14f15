/**
 * The print run on SQLite.
 */
import type { DeliveryStore } from '../port.js';
import { drawCountQuery, runPageQuery, toDelivery, toDrawCount } from '../sql/deliveries.js';
import type { SqliteDatabase } from './database.js';

export function sqliteDeliveries(database: SqliteDatabase): DeliveryStore {
  return {
    async listDeliveries(run, query) {
      return database.all(runPageQuery(run, query, 'sqlite')).map(toDelivery);
    },
    async countDraw(run) {
      return database.all(drawCountQuery(run, 'sqlite')).map(toDrawCount);
    },
  };
}
