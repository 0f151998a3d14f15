/**
 * /users/{user_id}/subscriptions/{subscription_id}/holds: a print subscription's holds. A hold is
 * made, moved and withdrawn only while its dates are open by their cut-off; once it has started,
 * PATCH endDate ends it early. Its rules (domain/hold.ts) run in the store's transaction, with
 * the first date still open worked out when the request came.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sentAttributeNames } from '../../domain/audit.js';
import { nowInSeconds } from '../../domain/dates.js';
import { HoldCreateAttributes, HOLDS, HoldUpdateAttributes, plannedHold, withdrawnHold } from '../../domain/hold.js';
import { dateAt, firstOpenDate } from '../../domain/publication.js';
import { errors } from '../errors.js';
import { createDocument, errorResponses, singleDocument, updateDocument, withExample } from '../jsonapi/documents.js';
import { etagOf, ifMatchVersions } from '../jsonapi/etag.js';
import { withHeaders } from '../jsonapi/response-headers.js';
import { HoldParams, SubscriptionParams } from '../jsonapi/params.js';
import { cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import {
  AdaHold,
  changesMeta,
  datedCollectionDocument,
  datedListExample,
  HOLD_EXAMPLE,
  HoldResource,
  holdPath,
  renderHold,
} from '../jsonapi/print-resources.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';
import { noSuchSubscription } from './subscriptions.js';

const HoldDocument = withExample(singleDocument(HoldResource), { data: AdaHold });
const ListQuery = Type.Object(
  { 'page[size]': PageSize, 'page[after]': PageAfter('a hold') },
  { additionalProperties: false },
);

export const holdRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl, print }) => {
  const { calendar } = print;
  const noSuchHold = (userId: string, subscriptionId: string, id: string) =>
    errors.notFound(`Subscription ${subscriptionId} of user ${userId} has no hold with id "${id}".`);

  app.post(
    '/users/:user_id/subscriptions/:subscription_id/holds',
    {
      schema: {
        summary: 'Create a hold',
        description:
          'Pauses a print subscription’s deliveries between two dates, which must still be open by their cut-off (422 otherwise).',
        params: SubscriptionParams,
        body: withExample(createDocument(HOLDS, HoldCreateAttributes), {
          data: { type: HOLDS, attributes: HOLD_EXAMPLE },
        }),
        response: {
          201: withHeaders(HoldDocument, 'Location', 'ETag'),
          ...errorResponses(400, 403, 404, 406, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id } = request.params;
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const now = nowInSeconds();
      const firstOpen = firstOpenDate(now, calendar);
      const hold = await store.holds.create(
        user_id,
        subscription_id,
        (context) => plannedHold(undefined, data.attributes, context, print, firstOpen),
        auditOf(request, sentAttributeNames(data.attributes)),
      );
      if (!hold) throw noSuchSubscription(user_id, subscription_id);
      const resource = renderHold(baseUrl(request), hold, dateAt(now, calendar.zone));
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(hold.version) })
        .send({ data: resource });
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id/holds',
    {
      schema: {
        summary: 'List a subscription’s holds',
        description: 'The holds of a print subscription, paged by cursor (page[after]).',
        params: SubscriptionParams,
        querystring: ListQuery,
        response: {
          200: withExample(
            datedCollectionDocument(HoldResource),
            datedListExample('/users/42/subscriptions/7/holds', AdaHold),
          ),
          ...errorResponses(400, 404, 406),
        },
      },
    },
    async (request) => {
      const { user_id, subscription_id } = request.params;
      const size = pageSizeOf(request.query);
      const list = await store.holds.list(user_id, subscription_id, {
        afterId: request.query['page[after]'],
        limit: size + 1,
      });
      if (!list) throw noSuchSubscription(user_id, subscription_id);
      const now = nowInSeconds();
      const today = dateAt(now, calendar.zone);
      const path = holdPath({ userId: user_id, subscriptionId: subscription_id });
      const { page, links } = cursorPage(list, size, baseUrl(request), path, request.query);
      const data = page.map((hold) => renderHold(baseUrl(request), hold, today));
      return { links, data, meta: changesMeta(now, calendar) };
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id/holds/:hold_id',
    {
      schema: {
        summary: 'Read a hold',
        description: 'One hold of the print subscription.',
        params: HoldParams,
        response: { 200: HoldDocument, ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id, hold_id } = request.params;
      const hold = await store.holds.get(user_id, subscription_id, hold_id);
      if (!hold) throw noSuchHold(user_id, subscription_id, hold_id);
      // The status moves with the date: an ETag of the version alone would keep yesterday's.
      return reply.send({ data: renderHold(baseUrl(request), hold, dateAt(nowInSeconds(), calendar.zone)) });
    },
  );

  app.route({
    method: ['PATCH', 'PUT'],
    url: '/users/:user_id/subscriptions/:subscription_id/holds/:hold_id',
    schema: {
      summary: 'Update a hold',
      description:
        'Moves a hold’s dates while they are open by their cut-off; once it has started, only endDate changes, to end it early.',
      params: HoldParams,
      body: withExample(updateDocument(HOLDS, HoldUpdateAttributes), {
        data: { type: HOLDS, id: '3', attributes: { endDate: '2026-08-22' } },
      }),
      response: { 200: withHeaders(HoldDocument, 'ETag'), ...errorResponses(400, 404, 406, 409, 412, 413, 415, 422) },
    },
    handler: async (request, reply) => {
      const { user_id, subscription_id, hold_id } = request.params;
      const { data } = request.body;
      if (data.id !== hold_id) throw errors.idConflict();
      const now = nowInSeconds();
      const firstOpen = firstOpenDate(now, calendar);
      const hold = await store.holds.update(
        user_id,
        subscription_id,
        hold_id,
        (current, context) => plannedHold(current, data.attributes ?? {}, context, print, firstOpen),
        auditOf(request, sentAttributeNames(data.attributes)),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!hold) throw noSuchHold(user_id, subscription_id, hold_id);
      const resource = renderHold(baseUrl(request), hold, dateAt(now, calendar.zone));
      return reply.header('etag', etagOf(hold.version)).send({ data: resource });
    },
  });

  app.delete(
    '/users/:user_id/subscriptions/:subscription_id/holds/:hold_id',
    {
      schema: {
        summary: 'Withdraw a hold',
        description: 'Deletes a hold while its dates are open by their cut-off.',
        params: HoldParams,
        response: { 204: Type.Null(), ...errorResponses(404, 406, 409, 412) },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id, hold_id } = request.params;
      const firstOpen = firstOpenDate(nowInSeconds(), calendar);
      const hold = await store.holds.withdraw(
        user_id,
        subscription_id,
        hold_id,
        (current, context) => withdrawnHold(current, context.terms.dateEnded, print, firstOpen),
        auditOf(request),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!hold) throw noSuchHold(user_id, subscription_id, hold_id);
      return reply.status(204).send(null);
    },
  );
};
