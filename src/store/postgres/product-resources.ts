/**
 * The products' default resources, which a subscription naming no resource gives, kept in each
 * process's memory as notified-cache.ts keeps records, for at most PRODUCT_RESOURCE_MAX_AGE_MS: every update
 * or deletion of a product notifies PRODUCTS_CHANNEL. Only products found are kept, so one created
 * later needs no notification. The access check, the hottest read, applies them: read in a
 * subquery of its statement they cost PostgreSQL a noticeable part of every check, and on Citus a
 * statement of their own on the coordinator, a larger part still. A product not kept
 * costs a statement of its own: a process's first check naming it, after each change to
 * products, every 5 s, and every check while the process does not listen.
 */
import type { Resource } from '../../domain/subscription.js';
import type { ChangeListener } from './change-listener.js';
import type { PostgresDatabase } from './database.js';
import { NotifiedCache, type Changing } from './notified-cache.js';

/** The channel every update or deletion of a product notifies. */
export const PRODUCTS_CHANNEL = 'circulation_products';

/** How long a product's default resource is trusted at most, however quiet the notifications. */
export const PRODUCT_RESOURCE_MAX_AGE_MS = 5_000;

const RESOURCES_OF_PRODUCTS = 'SELECT id, resource FROM products WHERE id = ANY($1::text[])';

export interface ProductResources {
  /** The default resource of each of the products `ids` that exists. */
  of(ids: readonly string[]): Promise<Map<string, Resource | null>>;
  /** Runs a change to products in a transaction that tells every process, then forgets here. */
  changing: Changing;
}

export function productResources(
  database: PostgresDatabase,
  changes: ChangeListener,
  maxAgeMs = PRODUCT_RESOURCE_MAX_AGE_MS,
): ProductResources {
  const kept = new NotifiedCache<Resource | null>(database, changes, PRODUCTS_CHANNEL, maxAgeMs);

  async function of(ids: readonly string[]): Promise<Map<string, Resource | null>> {
    const given = new Map<string, Resource | null>();
    const missing = new Set<string>();
    for (const id of ids) {
      const found = kept.get(id);
      if (found) given.set(id, found.value);
      else missing.add(id);
    }
    if (missing.size === 0) return given;
    const since = kept.mark();
    const rows = await database.preparedRows('product-resources', RESOURCES_OF_PRODUCTS, [[...missing]]);
    for (const { id, resource } of rows as { id: string; resource: Resource | null }[]) {
      given.set(id, resource);
      kept.keep(since, id, resource);
    }
    return given;
  }

  return { of, changing: kept.changing };
}
