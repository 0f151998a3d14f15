/**
 * /users/{user_id}/subscriptions: a user's subscriptions, reachable only under their own user.
 * The list filters by status now (worked out when read), by what they give and by product; one
 * or a list may carry its products in `included`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { nowInSeconds } from '../../domain/dates.js';
import { sentAttributeNames } from '../../domain/audit.js';
import { errors } from '../errors.js';
import type { Product } from '../../domain/product.js';
import {
  newSubscription,
  SUBSCRIPTIONS,
  SubscriptionCreateAttributes,
  SubscriptionRelationships,
  SubscriptionUpdateAttributes,
  SUBSCRIPTION_STATUSES,
  type Resource,
  type StoredSubscription,
  type SubscriptionStatus,
} from '../../domain/subscription.js';
import { StoredCatalogueId } from '../../domain/catalogue.js';
import {
  compoundCollectionDocument,
  compoundDocument,
  createDocument,
  errorResponses,
  exampleLinks,
  singleDocument,
  withExample,
  updateDocument,
} from '../jsonapi/documents.js';
import { auditOf } from '../plugins/auth.js';
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import { SubscriptionParams, UserParams } from '../jsonapi/params.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import {
  AdaSubscription,
  DAILY,
  DailyProduct,
  fieldSet,
  PRODUCT_SHAPE,
  SUBSCRIPTION,
  ProductResource,
  renderCatalogueRecord,
  renderSubscription,
  ResourceFilter,
  SortById,
  SubscriptionFields,
  SubscriptionResource,
} from '../jsonapi/resources.js';
import {
  createSubscription,
  listSubscriptions,
  readSubscription,
  updateSubscription,
} from '../../use-cases/subscriptions.js';
import { noSuchUser } from './users.js';
import type { RouteOptions } from './options.js';
import { withHeaders } from '../jsonapi/response-headers.js';

const SubscriptionDocument = withExample(singleDocument(SubscriptionResource), { data: AdaSubscription });
const IncludeProduct = Type.Optional(
  Type.String({
    pattern: '^product$',
    errorMessage: { pattern: 'can only be product' },
    description: 'product: the subscriptions with their products, in `included`.',
  }),
);
const ReadQuery = Type.Object(
  { 'fields[subscriptions]': SubscriptionFields, include: IncludeProduct },
  { additionalProperties: false },
);
const STATUS = `(${SUBSCRIPTION_STATUSES.join('|')})`;
const ListQuery = Type.Object(
  {
    'fields[subscriptions]': SubscriptionFields,
    sort: SortById,
    include: IncludeProduct,
    'filter[status]': Type.Optional(
      Type.String({
        pattern: `^${STATUS}(,${STATUS})*$`,
        errorMessage: { pattern: `must be a comma-separated list of: ${SUBSCRIPTION_STATUSES.join(', ')}` },
        description: 'Only subscriptions in these statuses now.',
      }),
    ),
    'filter[resource]': ResourceFilter('Only the subscriptions that give it.'),
    'filter[product]': Type.Optional({ ...StoredCatalogueId, description: 'Only subscriptions of this product.' }),
    'page[size]': PageSize,
    'page[after]': PageAfter('a subscription'),
  },
  { additionalProperties: false },
);

export const subscriptionRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  const render = (request: FastifyRequest, s: StoredSubscription, fields?: ReadonlySet<string>) =>
    renderSubscription(baseUrl(request), s, fields);

  /** With `include=product`, the products read with the subscriptions, for `included`. */
  const includedProducts = (request: FastifyRequest, products: Product[] | undefined) =>
    products === undefined
      ? {}
      : { included: products.map((product) => renderCatalogueRecord(baseUrl(request), PRODUCT_SHAPE, product)) };

  app.post(
    '/users/:user_id/subscriptions',
    {
      schema: {
        summary: 'Create a subscription',
        description:
          'Gives the user a subscription to a product (relationships.product); answers 201 with Location and ETag.',
        params: UserParams,
        body: withExample(createDocument(SUBSCRIPTIONS, SubscriptionCreateAttributes, SubscriptionRelationships), {
          data: { type: SUBSCRIPTIONS, attributes: SUBSCRIPTION, relationships: DAILY },
        }),
        response: {
          201: withHeaders(SubscriptionDocument, 'Location', 'ETag'),
          ...errorResponses(400, 403, 404, 406, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { user_id } = request.params;
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const values = newSubscription(data.attributes, data.relationships?.product?.data?.id ?? null);
      const created = await createSubscription(
        store,
        user_id,
        values,
        auditOf(request, sentAttributeNames(data.attributes, data.relationships)),
      );
      if (!created) throw noSuchUser(user_id);
      const resource = render(request, created);
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(created.version) })
        .send({ data: resource });
    },
  );

  app.get(
    '/users/:user_id/subscriptions',
    {
      schema: {
        summary: 'List a user’s subscriptions',
        description:
          'Filtered by status now, by what they give and by product; include=product adds their products in `included`.',
        params: UserParams,
        querystring: ListQuery,
        response: {
          200: withExample(compoundCollectionDocument(SubscriptionResource, CursorLinks, ProductResource), {
            links: exampleLinks('/users/42/subscriptions'),
            data: [AdaSubscription],
          }),
          ...errorResponses(400, 404, 406),
        },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const query = request.query;
      const size = pageSizeOf(query);
      const statuses = query['filter[status]']?.split(',') as SubscriptionStatus[] | undefined;
      const filtered = statuses || query['filter[resource]'] !== undefined || query['filter[product]'] !== undefined;
      const found = await listSubscriptions(
        store,
        user_id,
        {
          afterId: query['page[after]'],
          limit: size + 1,
          descending: query.sort === '-id',
          ...(filtered
            ? {
                filter: {
                  at: nowInSeconds(),
                  statuses,
                  resource: query['filter[resource]'] as Resource | undefined,
                  product: query['filter[product]'],
                },
              }
            : {}),
        },
        size,
        query.include !== undefined,
      );
      if (!found) throw noSuchUser(user_id);
      const fields = fieldSet(query['fields[subscriptions]']);
      const path = `/users/${user_id}/subscriptions`;
      const { page, links } = cursorPage(found.fetched, size, baseUrl(request), path, query);
      return {
        links,
        data: page.map((s) => render(request, s, fields)),
        ...includedProducts(request, found.products),
      };
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id',
    {
      schema: {
        summary: 'Read a subscription',
        description:
          'One subscription of the user; include=product adds its product in `included`. If-None-Match with its ETag answers 304.',
        params: SubscriptionParams,
        querystring: ReadQuery,
        response: {
          200: withExample(compoundDocument(SubscriptionResource, ProductResource), {
            data: AdaSubscription,
            included: [DailyProduct],
          }),
          ...NotModifiedResponse,
          ...errorResponses(404, 406),
        },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id } = request.params;
      const { include, 'fields[subscriptions]': fields } = request.query;
      const found = await readSubscription(store, user_id, subscription_id, include !== undefined);
      if (!found) throw noSuchSubscription(user_id, subscription_id);
      const { subscription, products } = found;
      const whole = fields === undefined && include === undefined;
      if (whole && answeredNotModified(request, reply, subscription.version)) return reply;
      return { data: render(request, subscription, fieldSet(fields)), ...includedProducts(request, products) };
    },
  );

  app.route({
    method: ['PUT', 'PATCH'],
    url: '/users/:user_id/subscriptions/:subscription_id',
    schema: {
      summary: 'Update a subscription',
      description:
        'Changes the attributes and product sent; sending nothing answers it as it stands. If-Match with an ETag writes only over that version (412 otherwise).',
      params: SubscriptionParams,
      body: withExample(updateDocument(SUBSCRIPTIONS, SubscriptionUpdateAttributes, SubscriptionRelationships), {
        data: { type: SUBSCRIPTIONS, id: '7', attributes: { dateEnded: '2027-04-30T23:59:59+00:00' } },
      }),
      response: {
        200: withHeaders(SubscriptionDocument, 'Location', 'ETag'),
        ...errorResponses(400, 404, 406, 409, 413, 415, 422),
      },
    },
    handler: async (request, reply) => {
      const { user_id, subscription_id } = request.params;
      const { data } = request.body;
      if (data.id !== subscription_id) throw errors.idConflict();
      const product = data.relationships?.product;
      const updated = await updateSubscription(
        store,
        user_id,
        subscription_id,
        {
          attributes: data.attributes ?? {},
          productId: product === undefined ? undefined : (product.data?.id ?? null),
          ifVersion: ifMatchVersions(request.headers['if-match']),
        },
        auditOf(request, sentAttributeNames(data.attributes, data.relationships)),
      );
      if (!updated) throw noSuchSubscription(user_id, subscription_id);
      const resource = render(request, updated);
      return reply.headers({ location: resource.links.self, etag: etagOf(updated.version) }).send({ data: resource });
    },
  });

  app.delete(
    '/users/:user_id/subscriptions/:subscription_id',
    {
      schema: {
        summary: 'Delete a subscription',
        description: 'Deletes the subscription. If-Match with an ETag deletes only that version (412 otherwise).',
        params: SubscriptionParams,
        response: { 204: Type.Null(), ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id } = request.params;
      const ifVersion = ifMatchVersions(request.headers['if-match']);
      if (!(await store.subscriptions.delete(user_id, subscription_id, auditOf(request), ifVersion))) {
        throw noSuchSubscription(user_id, subscription_id);
      }
      return reply.status(204).send(null);
    },
  );

  app.put(
    '/users/:user_id/subscriptions/:subscription_id/expire',
    {
      schema: {
        summary: 'Expire a subscription',
        description: 'Ends the subscription now and answers it with its new ETag; takes no body.',
        params: SubscriptionParams,
        response: { 200: withHeaders(SubscriptionDocument, 'ETag'), ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id } = request.params;
      const expired = await store.subscriptions.expire(
        user_id,
        subscription_id,
        nowInSeconds(),
        auditOf(request, ['dateEnded', 'expired']),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!expired) throw noSuchSubscription(user_id, subscription_id);
      return reply.header('etag', etagOf(expired.version)).send({ data: render(request, expired) });
    },
  );
};

export function noSuchSubscription(userId: string, id: string) {
  return errors.notFound(`User ${userId} has no subscription with id "${id}".`);
}
