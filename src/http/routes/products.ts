/**
 * /products: the catalogue of what subscriptions are sold as (see catalogue.ts for the routes).
 * A product's GET carries in `meta` how many of its subscriptions are active now.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newProductValues, productChanges } from '../../domain/product.js';
import { productCatalogue } from '../../use-cases/catalogue.js';
import { PRODUCT_SHAPE } from '../jsonapi/resources.js';
import { catalogueRoutes } from './catalogue.js';
import type { RouteOptions } from './options.js';

export const productRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, options) => {
  await app.register(
    catalogueRoutes({
      ...PRODUCT_SHAPE,
      values: (attributes) => newProductValues(attributes as Parameters<typeof newProductValues>[0]),
      // What an update sends are attributes: delivery days as weekday names, kept as a mask.
      changes: (attributes) => productChanges(attributes as Parameters<typeof productChanges>[0]),
      catalogue: productCatalogue(options.store),
    }),
    options,
  );
};
