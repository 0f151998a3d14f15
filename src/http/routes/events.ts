/**
 * /events: every change to users and subscriptions, oldest first, for consumers that poll. Paged
 * by cursor (`links.next` carries `page[after]`), filtered by event type and by user.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES, EventAttributes, EVENTS, toEventResource, type EventType } from '../../domain/events.js';
import { collectionDocument, errorResponses } from '../jsonapi/documents.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import type { RouteOptions } from './options.js';

const TYPE = `(${EVENT_TYPES.join('|').replace(/\./g, '\\.')})`;

const EventQuery = Type.Object(
  {
    'filter[type]': Type.Optional(
      Type.String({
        pattern: `^${TYPE}(,${TYPE})*$`,
        errorMessage: { pattern: `must be a comma-separated list of: ${EVENT_TYPES.join(', ')}` },
      }),
    ),
    'filter[user]': Type.Optional(
      Type.String({ pattern: '^[1-9][0-9]{0,14}$', errorMessage: { pattern: 'must be a user id' } }),
    ),
    'page[after]': PageAfter('an event'),
    'page[size]': PageSize,
  },
  { additionalProperties: false },
);

const EventResource = Type.Object({ type: Type.Literal(EVENTS), id: Type.String(), attributes: EventAttributes });

export const eventRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  app.get(
    '/events',
    {
      schema: {
        querystring: EventQuery,
        response: { 200: collectionDocument(EventResource, CursorLinks), ...errorResponses(400, 401, 403, 406, 429) },
      },
    },
    async (request) => {
      const query = request.query;
      const size = pageSizeOf(query);
      const types = (query['filter[type]']?.split(',') ?? EVENT_TYPES) as EventType[];
      const entries = await store.listAuditEvents({
        afterId: query['page[after]'],
        limit: size + 1,
        userId: query['filter[user]'],
        eventTypes: types,
      });
      const { page, links } = cursorPage(entries, size, baseUrl(request), '/events', query);
      return {
        links,
        data: page.map(toEventResource),
      };
    },
  );
};
