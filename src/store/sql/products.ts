/**
 * Products as every adapter reads them with their count: one statement, the count an index range
 * of the product's unexpired subscriptions (see the subscriptions_product index).
 */
import { givesPrint } from '../../domain/print.js';
import type { Product } from '../../domain/product.js';
import type { Resource } from '../../domain/subscription.js';
import { raw, sql, type Dialect, type Sql } from './builder.js';
import { catalogueColumns, PRODUCTS_TABLE, toCatalogueRecord } from './catalogue.js';
import { instantValue, type Row } from './rows.js';
import { startedProduct, statusCondition } from './subscriptions.js';

export function productWithCountQuery(id: string, now: number, dialect: Dialect): Sql {
  const at = instantValue(dialect, now);
  const active = statusCondition('s', 'active', at);
  // Those started, then those whose start has come: never the ones still to come (see migration 18).
  // The second are the few read by their own index (subscriptions_pending_start): SQLite chose the
  // product's instead, for its product_id, and read every subscription of it; a unary plus there
  // keeps that column out of its choice.
  const product = raw(dialect === 'sqlite' ? '+s.product_id' : 's.product_id');
  const count = (started: Sql, column = raw('s.product_id')) =>
    sql`(SELECT count(*) FROM subscriptions s WHERE ${column} = ${id} AND ${started} AND ${active})`;
  return sql`SELECT ${raw(catalogueColumns(PRODUCTS_TABLE))},
      ${count(sql`${startedProduct('s')} = ${id}`)} + ${count(sql`s.pending_start <= ${at}`, product)}
      AS active_subscriptions
    FROM products WHERE id = ${id}`;
}

export function toProductWithCount(row: Row): { product: Product; activeSubscriptions: number } {
  return {
    product: toCatalogueRecord<Product>(PRODUCTS_TABLE, row),
    activeSubscriptions: Number(row.active_subscriptions),
  };
}

/**
 * Whether the subscriptions that name no resource of their own now get print from a product whose
 * resource goes from `before` to `after`, or undefined when the change leaves that as it was: only
 * then are their marks (migration 38) rewritten.
 */
export function printChangeOf(before: unknown, after: unknown): boolean | undefined {
  const gives = (resource: unknown) =>
    givesPrint({ resource: null, productResource: (resource ?? null) as Resource | null });
  const print = gives(after);
  return print === gives(before) ? undefined : print;
}
