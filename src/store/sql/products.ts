/**
 * Products as every adapter reads them with their count: one statement, the count an index range
 * of the product's unexpired subscriptions (see the subscriptions_product index).
 */
import type { Product } from '../../domain/product.js';
import { raw, sql, type Dialect, type Sql } from './builder.js';
import { catalogueColumns, PRODUCTS_TABLE, toCatalogueRecord } from './catalogue.js';
import { instantValue, type Row } from './rows.js';
import { startedProduct, statusCondition } from './subscriptions.js';

export function productWithCountQuery(id: string, now: number, dialect: Dialect): Sql {
  const at = instantValue(dialect, now);
  const active = statusCondition('s', 'active', at);
  // Those started, then those whose start has come: never the ones still to come (see migration 18).
  const count = (started: Sql) =>
    sql`(SELECT count(*) FROM subscriptions s WHERE s.product_id = ${id} AND ${started} AND ${active})`;
  return sql`SELECT ${raw(catalogueColumns(PRODUCTS_TABLE))},
      ${count(sql`${startedProduct('s')} = ${id}`)} + ${count(sql`s.pending_start <= ${at}`)} AS active_subscriptions
    FROM products WHERE id = ${id}`;
}

export function toProductWithCount(row: Row): { product: Product; activeSubscriptions: number } {
  return {
    product: toCatalogueRecord<Product>(PRODUCTS_TABLE, row),
    activeSubscriptions: Number(row.active_subscriptions),
  };
}
