/**
 * Products as every adapter reads them with their count: one statement, the count an index range
 * of the product's unexpired subscriptions (see the subscriptions_product index).
 */
import type { Product } from '../../domain/product.js';
import { raw, sql, type Dialect, type Sql } from './builder.js';
import { catalogueColumns, PRODUCTS_TABLE, toCatalogueRecord } from './catalogue.js';
import { instantValue, type Row } from './rows.js';
import { statusCondition } from './subscriptions.js';

export function productWithCountQuery(id: string, now: number, dialect: Dialect): Sql {
  const active = statusCondition('s', 'active', instantValue(dialect, now));
  return sql`SELECT ${raw(catalogueColumns(PRODUCTS_TABLE))},
      (SELECT count(*) FROM subscriptions s WHERE s.product_id = ${id} AND ${active}) AS active_subscriptions
    FROM products WHERE id = ${id}`;
}

export function toProductWithCount(row: Row): { product: Product; activeSubscriptions: number } {
  return {
    product: toCatalogueRecord<Product>(PRODUCTS_TABLE, row),
    activeSubscriptions: Number(row.active_subscriptions),
  };
}
