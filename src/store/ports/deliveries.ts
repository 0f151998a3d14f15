/**
 * The port for the print run: the deliveries of a date, in subscription order from a cursor, and
 * their counts for the draw report, derived from the subscriptions; a page of a run of the next
 * two dates may be read from the run kept (sql/kept-runs.ts), which says the same.
 */
import type { Delivery, DrawCount, RunDate, RunFilter } from '../../domain/delivery.js';

export interface RunPageQuery extends RunFilter {
  /** Only deliveries of subscriptions after this one. */
  afterId?: string;
  limit: number;
}

/**
 * A delivery as the JSON text of its resource object (`type`, `id`, `attributes`,
 * `relationships`), rendered by the database, with its subscription's id.
 */
export interface RenderedDelivery {
  subscriptionId: string;
  json: string;
}

export interface DeliveryStore {
  list(run: RunDate, query: RunPageQuery): Promise<Delivery[]>;
  /** The same page as `list`, each delivery as the text the API sends. */
  listRendered(run: RunDate, query: RunPageQuery): Promise<RenderedDelivery[]>;
  /** The run's copies by product and postal code; a key may come in more than one count, to be added up. */
  countDraw(run: RunDate): Promise<DrawCount[]>;
}
