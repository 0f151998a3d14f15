/**
 * The port for products. An id is the client's, or one the service draws when none is given; a
 * product a subscription names cannot be deleted (the STILL_REFERENCED failure says by how many).
 */
import type { AuditContext } from '../../domain/audit.js';
import type { Product, ProductValues } from '../../domain/product.js';
import type { CatalogueQuery } from './catalogue.js';
import type { IfVersion } from './versions.js';

export interface ProductStore {
  /** Creates it under `id` (ID_TAKEN when another product has it), or under a new id when none is given. */
  create(id: string | undefined, values: ProductValues, audit: AuditContext): Promise<Product>;
  /** The product, with how many of its subscriptions are active at `now`: one indexed read. */
  get(id: string, now: number): Promise<{ product: Product; activeSubscriptions: number } | undefined>;
  /** The products with these ids that exist (for `include`), in id order. */
  getMany(ids: readonly string[]): Promise<Product[]>;
  list(query: CatalogueQuery): Promise<Product[]>;
  update(
    id: string,
    changes: Partial<ProductValues>,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<Product | undefined>;
  delete(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
}
