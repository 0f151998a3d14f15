/**
 * What the service does with the catalogue's records, products and newsletters alike: creates
 * one, reads one with its counts, lists them, changes one, deletes one. Each kind answers the
 * same operations from its own store methods.
 */
import type { AuditContext } from '../domain/audit.js';
import type { CatalogueRecord } from '../domain/catalogue.js';
import type { Newsletter, NewsletterValues } from '../domain/newsletter.js';
import type { Product, ProductValues } from '../domain/product.js';
import type { CatalogueQuery, IfVersion, Store } from '../store/port.js';

/** The operations on one kind of catalogue record `R`, made of values `V`, read with counts `M`. */
export interface Catalogue<R extends CatalogueRecord, V, M> {
  /** Creates it under `id` (ID_TAKEN when another has it), or under a new id when none is given. */
  create(id: string | undefined, values: V, audit: AuditContext): Promise<R>;
  /** The record with its counts (those that depend on the time, at `now`). */
  read(id: string, now: number): Promise<{ record: R; meta: M } | undefined>;
  list(query: CatalogueQuery): Promise<R[]>;
  update(id: string, changes: Partial<V>, audit: AuditContext, ifVersion: IfVersion): Promise<R | undefined>;
  delete(id: string, audit: AuditContext, ifVersion: IfVersion): Promise<boolean>;
}

/** Products, read with how many of their subscriptions are active. */
export function productCatalogue(store: Store): Catalogue<Product, ProductValues, { activeSubscriptions: number }> {
  return {
    create: (id, values, audit) => store.products.create(id, values, audit),
    read: async (id, now) => {
      const found = await store.products.get(id, now);
      return found && { record: found.product, meta: { activeSubscriptions: found.activeSubscriptions } };
    },
    list: (query) => store.products.list(query),
    update: (id, changes, audit, ifVersion) => store.products.update(id, changes, audit, ifVersion),
    delete: (id, audit, ifVersion) => store.products.delete(id, audit, ifVersion),
  };
}

/** Newsletters, read with how many users are on them. */
export function newsletterCatalogue(store: Store): Catalogue<Newsletter, NewsletterValues, { members: number }> {
  return {
    create: (id, values, audit) => store.newsletters.create(id, values, audit),
    read: async (id) => {
      const found = await store.newsletters.get(id);
      return found && { record: found.newsletter, meta: { members: found.members } };
    },
    list: (query) => store.newsletters.list(query),
    update: (id, changes, audit, ifVersion) => store.newsletters.update(id, changes, audit, ifVersion),
    delete: (id, audit, ifVersion) => store.newsletters.delete(id, audit, ifVersion),
  };
}
