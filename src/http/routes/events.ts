/**
 * /events: every change to users and subscriptions, oldest first (or newest first, for a reader's
 * history in the console), for consumers that poll. Paged by cursor (`links.next` carries
 * `page[after]`), filtered by event type and by user; each event names who made the change.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { allows } from '../../domain/api-key.js';
import { Actor, actorOf } from '../../domain/audit.js';
import { EVENT_TYPES, EventAttributes, EVENTS, toEventResource, type EventType } from '../../domain/events.js';
import { listEvents } from '../../use-cases/events.js';
import { collectionDocument, errorResponses, exampleLinks, withExample } from '../jsonapi/documents.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import type { Credential } from '../plugins/auth.js';
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
    sort: Type.Optional(
      Type.String({
        pattern: '^-?id$',
        errorMessage: { pattern: 'can only be id or -id' },
        description: 'id (the default: oldest first) or -id (newest first, page[after] then meaning an older event).',
      }),
    ),
  },
  { additionalProperties: false },
);

const FeedEventAttributes = Type.Object({ ...EventAttributes.properties, actor: Actor });

const EventResource = Type.Object({ type: Type.Literal(EVENTS), id: Type.String(), attributes: FeedEventAttributes });

/** The website creating Ada: one row of the audit trail, which is the event too (the same id). */
export const ADA_CREATED = {
  id: '1024',
  occurredAt: '2026-05-01T09:58:12+00:00',
  sent: ['email', 'familyName', 'givenName', 'password'],
};

export const eventRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  app.get(
    '/events',
    {
      schema: {
        summary: 'List change events',
        description:
          'Every change to users and subscriptions, oldest first (sort=-id: newest first), filtered by type and user, paged by cursor through links.next; for consumers that poll.',
        querystring: EventQuery,
        response: {
          200: withExample(collectionDocument(EventResource, CursorLinks), {
            links: exampleLinks('/events?filter%5Buser%5D=42'),
            data: [
              {
                type: EVENTS,
                id: ADA_CREATED.id,
                attributes: {
                  eventType: 'user.created',
                  occurredAt: ADA_CREATED.occurredAt,
                  userId: '42',
                  resourceType: 'users',
                  resourceId: '42',
                  changed: ADA_CREATED.sent,
                  actor: { type: 'credentials', id: '3', name: 'Website' },
                },
              },
            ],
          }),
          ...errorResponses(400, 401, 403, 406, 429),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const size = pageSizeOf(query);
      const types = (query['filter[type]']?.split(',') ?? EVENT_TYPES) as EventType[];
      const { fetched, names } = await listEvents(
        store,
        {
          afterId: query['page[after]'],
          limit: size + 1,
          userId: query['filter[user]'],
          eventTypes: types,
          descending: query.sort === '-id',
        },
        size,
        mayKnowWho(request.credential),
      );
      const { page, links } = cursorPage(fetched, size, baseUrl(request), '/events', query);
      return {
        links,
        data: page.map((entry) => {
          const event = toEventResource(entry);
          const actor = actorOf(entry.actor);
          const named = actor && { ...actor, name: names.get(entry.actor as string) ?? null };
          return { ...event, attributes: { ...event.attributes, actor: named } };
        }),
      };
    },
  );
};

/**
 * Whose names a caller may read: the names of staff and of API keys are the administrators' (as
 * /staff and /api-keys are) and the console's, whose history shows who did what; a program reading
 * the feed learns only the kind and id of each actor. Without authentication, anyone may.
 */
export function mayKnowWho(credential: Credential | null): boolean {
  return credential === null || credential.staff !== undefined || allows(credential.scopes, 'admin');
}
