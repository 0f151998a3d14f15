/**
 * /users/{user_id}/subscriptions/{subscription_id}/delivery-complaints: a reader's complaints of
 * deliveries of a print subscription, and their remedies. A complaint is made, read and listed,
 * never changed: it records what happened. Its rules (domain/delivery-complaint.ts) run in the
 * store's transaction, with today and the first date still open worked out when the request came.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sentAttributeNames } from '../../domain/audit.js';
import { nowInSeconds } from '../../domain/dates.js';
import {
  DELIVERY_COMPLAINTS,
  DeliveryComplaintCreateAttributes,
  plannedComplaint,
} from '../../domain/delivery-complaint.js';
import { dateAt, firstOpenDate } from '../../domain/publication.js';
import { errors } from '../errors.js';
import {
  collectionDocument,
  createDocument,
  errorResponses,
  exampleLinks,
  singleDocument,
  withExample,
} from '../jsonapi/documents.js';
import { ComplaintParams, SubscriptionParams } from '../jsonapi/params.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import {
  AdaComplaint,
  COMPLAINT_EXAMPLE,
  complaintPath,
  DeliveryComplaintResource,
  renderDeliveryComplaint,
} from '../jsonapi/print-resources.js';
import { withHeaders } from '../jsonapi/response-headers.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';
import { noSuchSubscription } from './subscriptions.js';

const ComplaintDocument = withExample(singleDocument(DeliveryComplaintResource), { data: AdaComplaint });
const ListQuery = Type.Object(
  { 'page[size]': PageSize, 'page[after]': PageAfter('a complaint') },
  { additionalProperties: false },
);

export const deliveryComplaintRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { store, baseUrl, print },
) => {
  const { calendar } = print;

  app.post(
    '/users/:user_id/subscriptions/:subscription_id/delivery-complaints',
    {
      schema: {
        summary: 'Make a delivery complaint',
        description:
          'Records a complaint of one delivery of a print subscription (422 NOT_A_DELIVERY at deliveryDate when the date ' +
          'was none: not a delivery day, outside the term, held, or in the future; 409 COMPLAINT_EXISTS for a second ' +
          'complaint of the date). extend moves dateEnded on by one delivery day (subscription.updated); redeliver puts ' +
          'the subscription on the run of the first date still open by its cut-off once more: that run has one delivery ' +
          'of it with redelivery true and a copy more (a subscription not delivered that date appears with one copy).',
        params: SubscriptionParams,
        body: withExample(createDocument(DELIVERY_COMPLAINTS, DeliveryComplaintCreateAttributes), {
          data: { type: DELIVERY_COMPLAINTS, attributes: COMPLAINT_EXAMPLE },
        }),
        response: {
          201: withHeaders(ComplaintDocument, 'Location'),
          ...errorResponses(400, 403, 404, 406, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id } = request.params;
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const now = nowInSeconds();
      const today = dateAt(now, calendar.zone);
      const firstOpen = firstOpenDate(now, calendar);
      const complaint = await store.deliveryComplaints.create(
        user_id,
        subscription_id,
        (context) => plannedComplaint(data.attributes, context, print, today, firstOpen),
        auditOf(request, sentAttributeNames(data.attributes)),
      );
      if (!complaint) throw noSuchSubscription(user_id, subscription_id);
      const resource = renderDeliveryComplaint(baseUrl(request), complaint);
      return reply.status(201).header('location', resource.links.self).send({ data: resource });
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id/delivery-complaints',
    {
      schema: {
        summary: 'List a subscription’s delivery complaints',
        description:
          'The complaints of a print subscription’s deliveries with their remedies, paged by cursor (page[after]).',
        params: SubscriptionParams,
        querystring: ListQuery,
        response: {
          200: withExample(collectionDocument(DeliveryComplaintResource, CursorLinks), {
            links: exampleLinks('/users/42/subscriptions/7/delivery-complaints'),
            data: [AdaComplaint],
          }),
          ...errorResponses(400, 404, 406),
        },
      },
    },
    async (request) => {
      const { user_id, subscription_id } = request.params;
      const size = pageSizeOf(request.query);
      const list = await store.deliveryComplaints.list(user_id, subscription_id, {
        afterId: request.query['page[after]'],
        limit: size + 1,
      });
      if (!list) throw noSuchSubscription(user_id, subscription_id);
      const path = complaintPath({ userId: user_id, subscriptionId: subscription_id });
      const { page, links } = cursorPage(list, size, baseUrl(request), path, request.query);
      return { links, data: page.map((complaint) => renderDeliveryComplaint(baseUrl(request), complaint)) };
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id/delivery-complaints/:complaint_id',
    {
      schema: {
        summary: 'Read a delivery complaint',
        description: 'One complaint with its remedy; a complaint never changes.',
        params: ComplaintParams,
        response: { 200: ComplaintDocument, ...errorResponses(404, 406) },
      },
    },
    async (request) => {
      const { user_id, subscription_id, complaint_id } = request.params;
      const complaint = await store.deliveryComplaints.get(user_id, subscription_id, complaint_id);
      if (!complaint) {
        throw errors.notFound(
          `Subscription ${subscription_id} of user ${user_id} has no complaint with id "${complaint_id}".`,
        );
      }
      return { data: renderDeliveryComplaint(baseUrl(request), complaint) };
    },
  );
};
