/**
 * /newsletters: the catalogue of what readers are members of (see catalogue.ts for the routes).
 * A newsletter's GET carries in `meta` how many users are on it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newNewsletterValues, type NewsletterValues } from '../../domain/newsletter.js';
import { newsletterCatalogue } from '../../use-cases/catalogue.js';
import { NEWSLETTER_SHAPE } from '../jsonapi/resources.js';
import { catalogueRoutes } from './catalogue.js';
import type { RouteOptions } from './options.js';

export const newsletterRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, options) => {
  await app.register(
    catalogueRoutes({
      ...NEWSLETTER_SHAPE,
      values: (attributes) => newNewsletterValues(attributes as Parameters<typeof newNewsletterValues>[0]),
      changes: (attributes) => attributes as Partial<NewsletterValues>,
      catalogue: newsletterCatalogue(options.store),
    }),
    options,
  );
};
