/**
 * /newsletters: the catalogue of what readers are members of (see catalogue.ts for the routes).
 * A newsletter's GET carries in `meta` how many users are on it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newNewsletterValues } from '../../domain/newsletter.js';
import type { Store } from '../../store/port.js';
import { NEWSLETTER_SHAPE } from '../jsonapi/resources.js';
import { catalogueRoutes } from './catalogue.js';
import type { RouteOptions } from './options.js';

export const newsletterRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, options) => {
  const store: Store = options.store;
  await app.register(
    catalogueRoutes({
      ...NEWSLETTER_SHAPE,
      values: (attributes) => newNewsletterValues(attributes as Parameters<typeof newNewsletterValues>[0]),
      create: (id, values, audit) => store.createNewsletter(id, values, audit),
      read: async (id) => {
        const found = await store.getNewsletter(id);
        return found && { record: found.newsletter, meta: { members: found.members } };
      },
      list: (query) => store.listNewsletters(query),
      update: (id, changes, audit, ifVersion) => store.updateNewsletter(id, changes, audit, ifVersion),
      delete: (id, audit, ifVersion) => store.deleteNewsletter(id, audit, ifVersion),
    }),
    options,
  );
};
