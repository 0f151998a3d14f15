/**
 * Products on SQLite.
 */
import type { Product, ProductValues } from '../../domain/product.js';
import type { ProductStore } from '../port.js';
import { PRODUCTS_TABLE } from '../sql/catalogue.js';
import {
  markProductSubscriptions,
  productGivesPrint,
  productWithCountQuery,
  toProductWithCount,
} from '../sql/products.js';
import type { Row } from '../sql/rows.js';
import { sqliteCatalogue } from './catalogue.js';
import type { SqliteDatabase } from './database.js';

export function sqliteProducts(database: SqliteDatabase): ProductStore {
  /** A product that starts or stops giving print marks its subscriptions so, in the change's transaction. */
  function marked(before: Row, after: Row) {
    const givesPrint = productGivesPrint(after.resource);
    if (givesPrint !== productGivesPrint(before.resource))
      database.changes(markProductSubscriptions(String(after.id), givesPrint));
  }
  const products = sqliteCatalogue<Product, ProductValues>(database, PRODUCTS_TABLE, marked);

  async function getProduct(id: string, now: number) {
    const [[row] = []] = await database.longReads.read([productWithCountQuery(id, now, 'sqlite')]);
    return row && toProductWithCount(row);
  }

  return {
    create: products.create,
    get: getProduct,
    getMany: products.getMany,
    list: products.list,
    update: products.update,
    delete: products.delete,
  };
}
