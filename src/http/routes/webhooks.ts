/**
 * /webhooks: admins register the endpoints that receive events, and watch their deliveries. A new
 * webhook's signing secret is in the create response's `meta.secret`, and nowhere ever again.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sentAttributeNames } from '../../domain/audit.js';
import { formatInstant, formatMilliseconds } from '../../domain/dates.js';
import { errors } from '../errors.js';
import {
  DELIVERY_STATES,
  DeliveryAttributes,
  WEBHOOK_DELIVERIES,
  WebhookAttributes,
  WebhookCreateAttributes,
  WEBHOOKS,
  WebhookUpdateAttributes,
  type AllowedNetworks,
  type Webhook,
  type WebhookDelivery,
} from '../../domain/webhooks.js';
import { changeWebhook, registerWebhook } from '../../use-cases/webhooks.js';
import { auditOf } from '../plugins/auth.js';
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import {
  collectionDocument,
  createDocument,
  errorResponses,
  exampleLinks,
  resourceObject,
  singleDocument,
  updateDocument,
  withExample,
} from '../jsonapi/documents.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import { DeliveryParams, WebhookParams } from '../jsonapi/params.js';
import type { RouteOptions } from './options.js';
import { withHeaders } from '../jsonapi/response-headers.js';

const WebhookResource = resourceObject(WEBHOOKS, WebhookAttributes);
const DeliveryResource = resourceObject(WEBHOOK_DELIVERIES, DeliveryAttributes);

/** The publisher's CRM, told of every new or changed reader, as /docs shows it. */
const CRM_HOOK = {
  url: 'https://crm.publisher.example/hooks/circulation',
  events: ['user.created', 'user.updated'],
} satisfies Static<typeof WebhookCreateAttributes>;
const CrmWebhook = {
  type: WEBHOOKS,
  id: '2',
  attributes: { ...CRM_HOOK, createdAt: '2026-01-12T10:00:00+00:00', updatedAt: '2026-01-12T10:00:00+00:00' },
  links: exampleLinks('/webhooks/2'),
} satisfies Static<typeof WebhookResource>;
const WebhookDocument = withExample(singleDocument(WebhookResource), { data: CrmWebhook });

/** Its delivery of Ada's creation, taken at the first attempt. */
const AdaDelivery = {
  type: WEBHOOK_DELIVERIES,
  id: '310',
  attributes: {
    eventId: '1024',
    eventType: 'user.created',
    userId: '42',
    state: 'delivered',
    attempts: 1,
    createdAt: '2026-05-01T09:58:12.345+00:00',
    nextAttemptAt: null,
    lastAttemptAt: '2026-05-01T09:58:13+00:00',
    lastStatus: 204,
    lastError: null,
    deliveredAt: '2026-05-01T09:58:13+00:00',
  },
  links: exampleLinks('/webhooks/2/deliveries/310'),
} satisfies Static<typeof DeliveryResource>;
const ADMIN = { scope: 'admin' } as const;
const DENIALS = [401, 403, 406, 429];

const DeliveryQuery = Type.Object(
  {
    'filter[state]': Type.Optional(
      Type.String({
        pattern: `^(${DELIVERY_STATES.join('|')})$`,
        errorMessage: { pattern: `must be one of: ${DELIVERY_STATES.join(', ')}` },
      }),
    ),
    'page[after]': PageAfter('a delivery'),
    'page[size]': PageSize,
  },
  { additionalProperties: false },
);

export interface WebhookRouteOptions {
  /** The webhook key; undefined when the service has none (PostgreSQL without a service key). */
  key: Buffer | undefined;
  /** Internal networks an endpoint may be in (WEBHOOK_ALLOWED_NETWORKS). */
  allowedNetworks: AllowedNetworks;
}

export const webhookRoutes: FastifyPluginAsyncTypebox<RouteOptions & WebhookRouteOptions> = async (
  app,
  { store, baseUrl, key, allowedNetworks },
) => {
  const render = (request: FastifyRequest, webhook: Webhook) => ({
    type: WEBHOOKS,
    id: webhook.id,
    attributes: {
      url: webhook.url,
      events: webhook.events,
      createdAt: formatInstant(webhook.createdAt),
      updatedAt: formatInstant(webhook.updatedAt),
    },
    links: { self: `${baseUrl(request)}/webhooks/${webhook.id}` },
  });
  const renderDelivery = (request: FastifyRequest, d: WebhookDelivery) => ({
    type: WEBHOOK_DELIVERIES,
    id: d.id,
    attributes: {
      eventId: d.eventId,
      eventType: d.eventType,
      userId: d.userId,
      state: d.state,
      attempts: d.attempts,
      createdAt: formatMilliseconds(d.createdAt),
      nextAttemptAt: instantOrNull(d.nextAttemptAt),
      lastAttemptAt: instantOrNull(d.lastAttemptAt),
      lastStatus: d.lastStatus,
      lastError: d.lastError,
      deliveredAt: instantOrNull(d.deliveredAt),
    },
    links: { self: `${baseUrl(request)}/webhooks/${d.webhookId}/deliveries/${d.id}` },
  });

  app.post(
    '/webhooks',
    {
      config: { ...ADMIN, showsSecret: true },
      schema: {
        summary: 'Register a webhook',
        description:
          'Registers an endpoint that receives events; its signing secret is in this answer’s meta.secret and nowhere ever again. Admins only.',
        body: withExample(createDocument(WEBHOOKS, WebhookCreateAttributes), {
          data: { type: WEBHOOKS, attributes: CRM_HOOK },
        }),
        response: {
          201: withHeaders(
            withExample(
              Type.Object({
                data: WebhookResource,
                meta: Type.Object({
                  secret: Type.String({
                    description:
                      'The signing secret (Standard Webhooks, whsec_…), shown this once; it is never stored.',
                  }),
                }),
              }),
              { data: CrmWebhook, meta: { secret: 'whsec_cLl2W5kXU1m4yHqGv3oZtY8fJbN0dR6aS9eP7iK2wQ0=' } },
            ),
            'Location',
            'ETag',
          ),
          ...errorResponses(400, 403, 409, 413, 415, 422, 503, ...DENIALS),
        },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      if (!key) throw errors.webhooksNotSetUp();
      const { url, events } = data.attributes;
      const { webhook, secret } = await registerWebhook(
        store,
        key,
        allowedNetworks,
        { url, events },
        auditOf(request, sentAttributeNames(data.attributes)),
      );
      const resource = render(request, webhook);
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(webhook.version) })
        .send({ data: resource, meta: { secret } });
    },
  );

  app.get(
    '/webhooks',
    {
      config: ADMIN,
      schema: {
        summary: 'List webhooks',
        description: 'Every registered endpoint, without secrets. Admins only.',
        response: {
          200: withExample(collectionDocument(WebhookResource), {
            links: exampleLinks('/webhooks'),
            data: [CrmWebhook],
          }),
          ...errorResponses(...DENIALS),
        },
      },
    },
    async (request) => ({
      links: { self: `${baseUrl(request)}/webhooks` },
      data: (await store.webhooks.list()).map((webhook) => render(request, webhook)),
    }),
  );

  app.get(
    '/webhooks/:webhook_id',
    {
      config: ADMIN,
      schema: {
        summary: 'Read a webhook',
        description: 'One registered endpoint, without its secret. Admins only.',
        params: WebhookParams,
        response: { 200: WebhookDocument, ...NotModifiedResponse, ...errorResponses(404, ...DENIALS) },
      },
    },
    async (request, reply) => {
      const webhook = await store.webhooks.get(request.params.webhook_id);
      if (!webhook) throw noSuchWebhook(request.params.webhook_id);
      if (answeredNotModified(request, reply, webhook.version)) return reply;
      return reply.send({ data: render(request, webhook) });
    },
  );

  app.route({
    method: ['PUT', 'PATCH'],
    url: '/webhooks/:webhook_id',
    config: ADMIN,
    schema: {
      summary: 'Update a webhook',
      description:
        'Changes the attributes sent; If-Match with an ETag writes only over that version (412 otherwise). Admins only.',
      params: WebhookParams,
      body: withExample(updateDocument(WEBHOOKS, WebhookUpdateAttributes), {
        data: { type: WEBHOOKS, id: '2', attributes: { events: CRM_HOOK.events } },
      }),
      response: {
        200: withHeaders(WebhookDocument, 'ETag'),
        ...errorResponses(400, 404, 409, 413, 415, 422, ...DENIALS),
      },
    },
    handler: async (request, reply) => {
      const { webhook_id } = request.params;
      const { data } = request.body;
      if (data.id !== webhook_id) throw errors.idConflict();
      const updated = await changeWebhook(
        store,
        allowedNetworks,
        webhook_id,
        data.attributes ?? {},
        auditOf(request, sentAttributeNames(data.attributes)),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!updated) throw noSuchWebhook(webhook_id);
      return reply.header('etag', etagOf(updated.version)).send({ data: render(request, updated) });
    },
  });

  app.delete(
    '/webhooks/:webhook_id',
    {
      config: ADMIN,
      schema: {
        summary: 'Delete a webhook',
        description: 'Removes the endpoint; it receives nothing more. Admins only.',
        params: WebhookParams,
        response: { 204: Type.Null(), ...errorResponses(404, ...DENIALS) },
      },
    },
    async (request, reply) => {
      const { webhook_id } = request.params;
      const ifVersion = ifMatchVersions(request.headers['if-match']);
      if (!(await store.webhooks.delete(webhook_id, auditOf(request), ifVersion))) throw noSuchWebhook(webhook_id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/webhooks/:webhook_id/deliveries',
    {
      config: ADMIN,
      schema: {
        summary: 'List a webhook’s deliveries',
        description:
          'The events sent or to be sent to the endpoint with their state, paged by cursor (page[after]). Admins only.',
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: {
          200: withExample(collectionDocument(DeliveryResource, CursorLinks), {
            links: exampleLinks('/webhooks/2/deliveries'),
            data: [AdaDelivery],
          }),
          ...errorResponses(400, 404, ...DENIALS),
        },
      },
    },
    async (request) => {
      const { webhook_id } = request.params;
      const query = request.query;
      const size = pageSizeOf(query);
      const deliveries = await store.webhooks.listDeliveries(webhook_id, {
        afterId: query['page[after]'],
        limit: size + 1,
        state: query['filter[state]'] as WebhookDelivery['state'] | undefined,
      });
      if (!deliveries) throw noSuchWebhook(webhook_id);
      const path = `/webhooks/${webhook_id}/deliveries`;
      const { page, links } = cursorPage(deliveries, size, baseUrl(request), path, query);
      return { links, data: page.map((d) => renderDelivery(request, d)) };
    },
  );

  const oneDelivery = {
    config: ADMIN,
    schema: {
      params: DeliveryParams,
      response: {
        200: withHeaders(withExample(singleDocument(DeliveryResource), { data: AdaDelivery }), 'ETag'),
        ...errorResponses(404, ...DENIALS),
      },
    },
  };

  const readDelivery = {
    ...oneDelivery,
    schema: {
      ...oneDelivery.schema,
      summary: 'Read a webhook delivery',
      description: 'One delivery of an event to the endpoint, with its state. Admins only.',
      response: { ...oneDelivery.schema.response, ...NotModifiedResponse },
    },
  };
  const redeliver = {
    ...oneDelivery,
    schema: {
      ...oneDelivery.schema,
      summary: 'Redeliver a webhook delivery',
      description: 'Sends the delivery again and answers it with its new ETag; takes no body. Admins only.',
    },
  };
  app.get('/webhooks/:webhook_id/deliveries/:delivery_id', readDelivery, async (request, reply) => {
    const { webhook_id, delivery_id } = request.params;
    const delivery = await store.webhooks.getDelivery(webhook_id, delivery_id);
    if (!delivery) throw noSuchDelivery(webhook_id, delivery_id);
    if (answeredNotModified(request, reply, delivery.version)) return reply;
    return reply.send({ data: renderDelivery(request, delivery) });
  });

  app.post('/webhooks/:webhook_id/deliveries/:delivery_id/redeliver', redeliver, async (request, reply) => {
    const { webhook_id, delivery_id } = request.params;
    const delivery = await store.webhooks.redeliver(webhook_id, delivery_id, Date.now());
    if (!delivery) throw noSuchDelivery(webhook_id, delivery_id);
    return reply.header('etag', etagOf(delivery.version)).send({ data: renderDelivery(request, delivery) });
  });
};

function instantOrNull(epochMilliseconds: number | null): string | null {
  return epochMilliseconds === null ? null : formatMilliseconds(epochMilliseconds);
}

function noSuchWebhook(id: string) {
  return errors.notFound(`There is no webhook with id "${id}".`);
}

function noSuchDelivery(webhookId: string, id: string) {
  return errors.notFound(`Webhook ${webhookId} has no delivery with id "${id}".`);
}
