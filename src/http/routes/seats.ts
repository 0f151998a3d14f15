/**
 * A site licence's seats and usage, under the licence:
 * - /users/{user_id}/subscriptions/{subscription_id}/seats: the readers the licence's owner names,
 *   each given what the licence gives others while it is active (domain/seat.ts). A seat is given
 *   (POST, `relationships.user` the reader), read, listed and taken back (DELETE): by the owner,
 *   or by the reader leaving; either way the owner's list no longer shows it.
 * - /users/{user_id}/subscriptions/{subscription_id}/usage: the access checks the licence granted
 *   per calendar month, by how it reached the one checking (domain/licence-usage.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { sentAttributeNames } from '../../domain/audit.js';
import { failures } from '../../domain/failures.js';
import { LICENCE_USAGE, LicenceUsageAttributes, toLicenceUsage } from '../../domain/licence-usage.js';
import { SEAT_HOLDER_POINTER, SeatAttributes, SEATS, toSeatAttributes, type StoredSeat } from '../../domain/seat.js';
import { SUBSCRIPTIONS } from '../../domain/subscription.js';
import { USERS } from '../../domain/user.js';
import { errors } from '../errors.js';
import {
  collectionDocument,
  createDocument,
  errorResponses,
  exampleLinks,
  resourceObject,
  singleDocument,
  withExample,
} from '../jsonapi/documents.js';
import { SeatParams, SubscriptionParams } from '../jsonapi/params.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import { withHeaders } from '../jsonapi/response-headers.js';
import { Identifier } from '../jsonapi/resources.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';
import { noSuchSubscription } from './subscriptions.js';

const SeatLinks = Type.Object({
  user: Type.Object({ data: Identifier(USERS) }, { description: 'The reader given the seat.' }),
  subscription: Type.Object({ data: Identifier(SUBSCRIPTIONS) }, { description: 'The site licence.' }),
});
const SeatResource = resourceObject(SEATS, SeatAttributes, SeatLinks);
/** A university's site licence (user 58's subscription 12) gives Ada a seat, as /docs shows it. */
const ADA = { user: { data: { type: USERS, id: '42' } } } as const;
const AdaSeat = {
  type: SEATS,
  id: '9',
  attributes: { createdAt: '2026-02-02T11:00:00+00:00' },
  relationships: { ...ADA, subscription: { data: { type: SUBSCRIPTIONS, id: '12' } } },
  links: exampleLinks('/users/58/subscriptions/12/seats/9'),
} satisfies Static<typeof SeatResource>;
const SeatDocument = withExample(singleDocument(SeatResource), { data: AdaSeat });

const SeatCreateRelationships = Type.Object(
  {
    user: Type.Object(
      {
        data: Type.Object(
          { type: Type.Literal(USERS), id: Type.String({ maxLength: 100 }) },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false, description: 'The reader to give the seat: a user who exists.' },
    ),
  },
  { additionalProperties: false },
);
const SeatCreateDocument = withExample(
  createDocument(
    SEATS,
    Type.Optional(Type.Object({}, { additionalProperties: false, description: 'A seat has no attributes to send.' })),
    SeatCreateRelationships,
  ),
  { data: { type: SEATS, relationships: ADA } },
);

const ListQuery = Type.Object(
  { 'page[size]': PageSize, 'page[after]': PageAfter('a seat') },
  { additionalProperties: false },
);

const UsageResource = Type.Object({
  type: Type.Literal(LICENCE_USAGE),
  id: Type.String({ description: "The licence's (subscription's) id." }),
  attributes: LicenceUsageAttributes,
  relationships: Type.Object({ subscription: Type.Object({ data: Identifier(SUBSCRIPTIONS) }) }),
  links: Type.Object({ self: Type.String({ format: 'uri' }) }),
});

/** A user id as the path takes it: anything else names no reader. */
const USER_ID = /^[1-9][0-9]{0,14}$/;

function seatPath(seat: Pick<StoredSeat, 'userId' | 'subscriptionId'>): string {
  return `/users/${seat.userId}/subscriptions/${seat.subscriptionId}/seats`;
}

function renderSeat(base: string, seat: StoredSeat) {
  return {
    type: SEATS,
    id: seat.id,
    attributes: toSeatAttributes(seat),
    relationships: {
      user: { data: { type: USERS, id: seat.holderId } },
      subscription: { data: { type: SUBSCRIPTIONS, id: seat.subscriptionId } },
    },
    links: { self: `${base}${seatPath(seat)}/${seat.id}` },
  };
}

export const seatRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  const noSuchSeat = (userId: string, subscriptionId: string, id: string) =>
    errors.notFound(`Subscription ${subscriptionId} of user ${userId} has no seat with id "${id}".`);

  app.post(
    '/users/:user_id/subscriptions/:subscription_id/seats',
    {
      schema: {
        summary: 'Give a seat',
        description:
          'Gives a reader a seat of a site licence: while the licence is active, their access (GET /users/{id}/access) ' +
          'has what it gives others, with a source via seat. 422 NO_SEATS on a subscription that is not a site licence ' +
          'with seats; 422 UNKNOWN_REFERENCE at the relationship for a reader who does not exist; 409 SEAT_TAKEN for a ' +
          'reader with a seat of the licence already; 422 SEATS_EXHAUSTED once the licence has given all its seats. ' +
          'Event seat.created.',
        params: SubscriptionParams,
        body: SeatCreateDocument,
        response: {
          201: withHeaders(SeatDocument, 'Location'),
          ...errorResponses(400, 403, 404, 406, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id } = request.params;
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const holderId = data.relationships?.user?.data.id;
      if (holderId === undefined) {
        throw failures.invalid([
          { pointer: '/data/relationships/user', detail: 'must name the reader given the seat' },
        ]);
      }
      if (!USER_ID.test(holderId)) {
        throw failures.unknownReference([{ pointer: SEAT_HOLDER_POINTER, detail: `user ${holderId} does not exist` }]);
      }
      const seat = await store.seats.create(
        user_id,
        subscription_id,
        holderId,
        auditOf(request, sentAttributeNames(data.attributes, data.relationships)),
      );
      if (!seat) throw noSuchSubscription(user_id, subscription_id);
      const resource = renderSeat(baseUrl(request), seat);
      return reply.status(201).header('location', resource.links.self).send({ data: resource });
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id/seats',
    {
      schema: {
        summary: 'List a licence’s seats',
        description: 'The readers the site licence’s owner has named, paged by cursor (page[after]).',
        params: SubscriptionParams,
        querystring: ListQuery,
        response: {
          200: withExample(collectionDocument(SeatResource, CursorLinks), {
            links: exampleLinks('/users/58/subscriptions/12/seats'),
            data: [AdaSeat],
          }),
          ...errorResponses(400, 404, 406),
        },
      },
    },
    async (request) => {
      const { user_id, subscription_id } = request.params;
      const size = pageSizeOf(request.query);
      const list = await store.seats.list(user_id, subscription_id, {
        afterId: request.query['page[after]'],
        limit: size + 1,
      });
      if (!list) throw noSuchSubscription(user_id, subscription_id);
      const base = baseUrl(request);
      const { page, links } = cursorPage(
        list,
        size,
        base,
        seatPath({ userId: user_id, subscriptionId: subscription_id }),
        request.query,
      );
      return { links, data: page.map((seat) => renderSeat(base, seat)) };
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id/seats/:seat_id',
    {
      schema: {
        summary: 'Read a seat',
        description: 'One seat of the site licence.',
        params: SeatParams,
        response: { 200: SeatDocument, ...errorResponses(404, 406) },
      },
    },
    async (request) => {
      const { user_id, subscription_id, seat_id } = request.params;
      const seat = await store.seats.get(user_id, subscription_id, seat_id);
      if (!seat) throw noSuchSeat(user_id, subscription_id, seat_id);
      return { data: renderSeat(baseUrl(request), seat) };
    },
  );

  app.delete(
    '/users/:user_id/subscriptions/:subscription_id/seats/:seat_id',
    {
      schema: {
        summary: 'Take back a seat',
        description:
          'Takes a seat back, or lets its reader leave: their access through it ends at once. Event seat.deleted.',
        params: SeatParams,
        response: { 204: Type.Null(), ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id, subscription_id, seat_id } = request.params;
      if (!(await store.seats.delete(user_id, subscription_id, seat_id, auditOf(request)))) {
        throw noSuchSeat(user_id, subscription_id, seat_id);
      }
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/users/:user_id/subscriptions/:subscription_id/usage',
    {
      schema: {
        summary: 'Read a licence’s usage',
        description:
          'The access checks a site licence granted, per calendar month (UTC), by how it reached the one checking: ' +
          'ip (GET /access?filter[ip]=), email-domain and seat (GET /users/{id}/access). Each process counts in memory ' +
          'and adds its counts in a batch every few seconds, so the last seconds of checks show a little later. Any ' +
          'subscription answers; one that is not a site licence has no months.',
        params: SubscriptionParams,
        response: {
          200: withExample(singleDocument(UsageResource), {
            data: {
              type: LICENCE_USAGE,
              id: '12',
              attributes: {
                months: [{ month: '2026-10', counts: { ip: 1840, 'email-domain': 212, seat: 35 }, total: 2087 }],
              },
              relationships: { subscription: { data: { type: SUBSCRIPTIONS, id: '12' } } },
              links: exampleLinks('/users/58/subscriptions/12/usage'),
            },
          }),
          ...errorResponses(404, 406),
        },
      },
    },
    async (request) => {
      const { user_id, subscription_id } = request.params;
      const counts = await store.licenceUsage.ofLicence(user_id, subscription_id);
      if (!counts) throw noSuchSubscription(user_id, subscription_id);
      return {
        data: {
          type: LICENCE_USAGE,
          id: subscription_id,
          attributes: toLicenceUsage(counts),
          relationships: { subscription: { data: { type: SUBSCRIPTIONS, id: subscription_id } } },
          links: { self: `${baseUrl(request)}/users/${user_id}/subscriptions/${subscription_id}/usage` },
        },
      };
    },
  );
};
