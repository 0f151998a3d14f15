/**
 * Products on PostgreSQL.
 */
import type { Product, ProductValues } from '../../domain/product.js';
import type { ProductStore } from '../port.js';
import { raw, sql, type Sql } from '../sql/builder.js';
import { PRODUCTS_TABLE } from '../sql/catalogue.js';
import { printChangeOf, productWithCountQuery, toProductWithCount } from '../sql/products.js';
import { postgresCatalogue, type UpdateWork } from './catalogue.js';
import { lockCatalogueRecords, rowsOn, type PostgresDatabase } from './database.js';
import type { ProductResources } from './product-resources.js';

/**
 * The marks of a product's subscriptions that take what it gives, set to whether it now gives
 * print: those naming no resource of their own and not expired (no run to come delivers an
 * expired one, whatever its mark), and only those whose mark differs.
 */
function markProductSubscriptions(productId: string, print: boolean): Sql {
  const mark = raw(print ? 'true' : 'false');
  return sql`UPDATE subscriptions SET gives_print = ${mark}
    WHERE product_id = ${productId} AND resource IS NULL AND expired = false AND gives_print <> ${mark}`;
}

/**
 * A change of what a product gives marks its subscriptions (migration 38). It first holds the
 * product against every write that reads what the product gives while naming it (FOR UPDATE
 * waits for their FOR KEY SHARE; on Citus the exclusive lock for their shared one, see
 * lockCatalogueRecords), so the marks it sets see each such write, and each write after it
 * reads the product as changed.
 */
function marking(citus: boolean): UpdateWork<{ resource: unknown } | undefined> {
  return {
    async before(client, id, changes) {
      if (!('resource' in changes)) return undefined;
      if (citus) await lockCatalogueRecords(client, 'products', [id], 'exclusive');
      const { rows } = await client.query(`SELECT resource FROM products WHERE id = $1${citus ? '' : ' FOR UPDATE'}`, [
        id,
      ]);
      return rows[0] as { resource: unknown } | undefined;
    },
    async after(client, row, before) {
      const print = before && printChangeOf(before.resource, row.resource);
      if (print !== undefined) await rowsOn(client, markProductSubscriptions(String(row.id), print));
    },
  };
}

/** Products; each update and deletion tells every process, which may keep its default resource. */
export function postgresProducts(database: PostgresDatabase, resources: ProductResources): ProductStore {
  const products = postgresCatalogue<Product, ProductValues, { resource: unknown } | undefined>(
    database,
    PRODUCTS_TABLE,
    resources.changing,
    marking(database.citus),
  );

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
