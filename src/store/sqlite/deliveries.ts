/**
 * The print run on SQLite. A page of a run of the next dates reads the run kept (kept-runs.ts)
 * once it is complete, and the subscriptions until then. The draw report counts every
 * subscription touching the date, as long as the table: it is read off the event loop
 * (off-loop-reads.ts), its two counts in one read transaction, so that they are of one moment.
 */
import type { DeliveryStore } from '../port.js';
import {
  drawCountQueries,
  renderedRunPageQuery,
  runPageQuery,
  toDelivery,
  toDrawCount,
  toRenderedDelivery,
} from '../sql/deliveries.js';
import type { SqliteDatabase } from './database.js';
import type { SqliteKeptRuns } from './kept-runs.js';

export function sqliteDeliveries(database: SqliteDatabase, keptRuns: SqliteKeptRuns): DeliveryStore {
  return {
    async list(run, query) {
      return database.all(runPageQuery(run, query, 'sqlite')).map(toDelivery);
    },
    async listRendered(run, query) {
      return (
        keptRuns.page(run, query) ?? database.all(renderedRunPageQuery(run, query, 'sqlite')).map(toRenderedDelivery)
      );
    },
    async countDraw(run) {
      const counts = await database.longReads.read(drawCountQueries(run, 'sqlite'));
      return counts.flatMap((rows) => rows.map(toDrawCount));
    },
  };
}
