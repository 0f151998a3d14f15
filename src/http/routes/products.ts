/**
 * /products: the catalogue of what subscriptions are sold as (see catalogue.ts for the routes).
 * A product's GET carries in `meta` how many of its subscriptions are active now.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { nowInSeconds } from '../../domain/dates.js';
import { newProductValues, productChanges } from '../../domain/product.js';
import type { Store } from '../../store/port.js';
import { PRODUCT_SHAPE } from '../jsonapi/resources.js';
import { catalogueRoutes } from './catalogue.js';
import type { RouteOptions } from './options.js';

export const productRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, options) => {
  const store: Store = options.store;
  await app.register(
    catalogueRoutes({
      ...PRODUCT_SHAPE,
      values: (attributes) => newProductValues(attributes as Parameters<typeof newProductValues>[0]),
      create: (id, values, audit) => store.createProduct(id, values, audit),
      read: async (id) => {
        const found = await store.getProduct(id, nowInSeconds());
        return found && { record: found.product, meta: { activeSubscriptions: found.activeSubscriptions } };
      },
      list: (query) => store.listProducts(query),
      // What an update sends are attributes: delivery days as weekday names, kept as a mask.
      update: (id, changes, audit, ifVersion) =>
        store.updateProduct(id, productChanges(changes as Parameters<typeof productChanges>[0]), audit, ifVersion),
      delete: (id, audit, ifVersion) => store.deleteProduct(id, audit, ifVersion),
    }),
    options,
  );
};
