/**
 * The print run on PostgreSQL. On Citus each shard reads its users' subscriptions with their
 * holds and users beside them (co-located by user), and the coordinator merges the pages in
 * subscription order. A page's statement is prepared once per connection (its text differs by
 * the date's weekday and the filters given): planning it anew cost more than running it, and its
 * plan, a walk of the subscriptions' id index from the cursor, is the same whatever the values.
 * The draw counts the whole run, its two counts in one snapshot, with a long read's timeout. A
 * page of a run of the next dates reads the run kept (kept-runs.ts) once it is complete, except
 * on Citus, which keeps none.
 */
import type { DeliveryStore, RunPageQuery } from '../port.js';
import {
  drawCountQueries,
  renderedRunPageQuery,
  runPageQuery,
  toDelivery,
  toDrawCount,
  toRenderedDelivery,
} from '../sql/deliveries.js';
import type { Sql } from '../sql/builder.js';
import { preparedName, type PostgresDatabase } from './database.js';
import type { PostgresKeptRuns } from './kept-runs.js';

export function postgresDeliveries(database: PostgresDatabase, keptRuns?: PostgresKeptRuns): DeliveryStore {
  /** A page of the run as `page` reads it. */
  const readPage = async (page: Sql, query: RunPageQuery) =>
    // A product's page is planned for that product: read by it where it has few subscriptions,
    // in id order where it has many, which one generic plan could not be for every product.
    query.product === undefined
      ? await database.preparedRows(preparedName('run-page', page.texts.join('?')), page)
      : await database.rows(page);
  return {
    async list(run, query) {
      return (await readPage(runPageQuery(run, query, 'postgres'), query)).map(toDelivery);
    },
    async listRendered(run, query) {
      const kept = await keptRuns?.page(run, query);
      if (kept !== undefined) return kept;
      return (await readPage(renderedRunPageQuery(run, query, 'postgres'), query)).map(toRenderedDelivery);
    },
    async countDraw(run) {
      const counts = await database.longReads(drawCountQueries(run, 'postgres'));
      return counts.flatMap((rows) => rows.map(toDrawCount));
    },
  };
}
