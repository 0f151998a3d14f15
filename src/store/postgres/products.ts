/**
 * Products on PostgreSQL.
 */
import type { Product, ProductValues } from '../../domain/product.js';
import type { ProductStore } from '../port.js';
import { PRODUCTS_TABLE } from '../sql/catalogue.js';
import { productWithCountQuery, toProductWithCount } from '../sql/products.js';
import { postgresCatalogue } from './catalogue.js';
import type { PostgresDatabase } from './database.js';
import type { ProductResources } from './product-resources.js';

/** Products; each update and deletion tells every process, which may keep its default resource. */
export function postgresProducts(database: PostgresDatabase, resources: ProductResources): ProductStore {
  const products = postgresCatalogue<Product, ProductValues>(database, PRODUCTS_TABLE, resources.changing);

  async function getProduct(id: string, now: number) {
    const [row] = await database.rows(productWithCountQuery(id, now, 'postgres'));
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
