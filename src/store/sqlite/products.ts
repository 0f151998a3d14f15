/**
 * Products on SQLite. A product that starts or stops giving print marks its subscriptions so
 * (migration 38) a range of ids at a time, each range a write of its own, so that the event loop
 * is free between them whatever the number of subscriptions.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { Product, ProductValues } from '../../domain/product.js';
import type { IfVersion, ProductStore } from '../port.js';
import { requireVersion } from '../ports/versions.js';
import { PRODUCTS_TABLE } from '../sql/catalogue.js';
import { printChangeOf, productWithCountQuery, toProductWithCount } from '../sql/products.js';
import { PRINT_LITERALS } from '../sql/subscriptions.js';
import { sqliteCatalogue } from './catalogue.js';
import type { SqliteDatabase } from './database.js';

/** The ids of subscriptions one write of a product's marking covers. */
export const MARKING_RANGE = 5_000;

/**
 * The subscriptions of a product that take what it gives (naming no resource of their own), in
 * a range of ids: those not expired, to mark as giving print; those marked, to clear once the
 * product neither gives print nor is marking its subscriptions so (asked in the same write). The
 * unary plus keeps SQLite from the product's index, which would read all its subscriptions for
 * every range, rather than the range of the table's own key.
 */
const TAKING = 'id > @after AND id <= @upTo AND +product_id = @id AND resource IS NULL';
export const MARK = `UPDATE subscriptions SET gives_print = 1 WHERE ${TAKING} AND expired = 0 AND gives_print = 0`;
export const CLEAR = `UPDATE subscriptions SET gives_print = 0 WHERE ${TAKING} AND gives_print = 1
  AND NOT coalesce((SELECT resource IN (${PRINT_LITERALS}) OR marking_print > 0 FROM products WHERE id = @id), 0)`;

export function sqliteProducts(database: SqliteDatabase): ProductStore {
  const { db } = database;
  const products = sqliteCatalogue<Product, ProductValues>(database, PRODUCTS_TABLE);
  const current = db.prepare('SELECT resource, version FROM products WHERE id = ?');
  const marking = db.prepare('UPDATE products SET marking_print = marking_print + ? WHERE id = ?');
  const lastSubscription = db.prepare('SELECT coalesce(max(id), 0) FROM subscriptions').pluck();
  const mark = db.prepare(MARK);
  const clear = db.prepare(CLEAR);

  async function getProduct(id: string, now: number) {
    const [[row] = []] = await database.longReads.read([productWithCountQuery(id, now, 'sqlite')]);
    return row && toProductWithCount(row);
  }

  /** Runs `statement` over every range of subscription ids, each range committed before the next. */
  async function overEveryRange(statement: typeof mark, id: string) {
    for (let after = 0; after < Number(lastSubscription.get()); after += MARKING_RANGE) {
      db.transaction(() => statement.run({ id, after, upTo: after + MARKING_RANGE }))();
      await database.group.settled();
    }
  }

  /**
   * Starting to give print, the product counts itself as marking first, so that every
   * subscription written until its change is marked as giving print, while the ranges mark
   * those there were; it counts down once changed (or refused). Stopping, it changes first and
   * clears the marks after, which until then only cost the run a step.
   */
  async function update(id: string, changes: Partial<ProductValues>, audit: AuditContext, ifVersion?: IfVersion) {
    if (!('resource' in changes)) return products.update(id, changes, audit, ifVersion);
    const before = current.get(id) as { resource: unknown; version: number } | undefined;
    if (before === undefined) return products.update(id, changes, audit, ifVersion);
    // Refused before any marking, which a refusal at the end would have done for nothing.
    requireVersion(before.version, ifVersion);
    const print = printChangeOf(before.resource, changes.resource);
    if (print === undefined) return products.update(id, changes, audit, ifVersion);
    if (!print) {
      const updated = await products.update(id, changes, audit, ifVersion);
      if (updated) await overEveryRange(clear, id);
      return updated;
    }
    db.transaction(() => marking.run(1, id))();
    try {
      await overEveryRange(mark, id);
      return await products.update(id, changes, audit, ifVersion);
    } finally {
      db.transaction(() => marking.run(-1, id))();
    }
  }

  return {
    create: products.create,
    get: getProduct,
    getMany: products.getMany,
    list: products.list,
    update,
    delete: products.delete,
  };
}
