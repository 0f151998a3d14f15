/**
 * The paywall's question, asked on every page view — may this reader see online content now, do
 * they get the print edition, until when, by which products:
 * - /users/{user_id}/access: a reader's, from their subscriptions active now and the site licences
 *   active now whose email domains hold theirs or of which they hold a seat, naming each source;
 *   one indexed read, and another only for a reader whose domain some licence names or who holds a
 *   seat (store/ports/site-licences.ts).
 * - /access?filter[ip]=: an address's, from the site licences active now whose ranges hold it,
 *   named in relationships.subscriptions; one indexed read of exact keys however many licences
 *   there are (domain/site-licence.ts).
 * A credential with the `access` scope may ask both and nothing else. Each licence that grants a
 * check is counted, in memory, for its usage (plugins/licence-usage.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { nowInSeconds } from '../../domain/dates.js';
import { ACCESS, AccessAttributes, ReaderAccessAttributes } from '../../domain/entitlement.js';
import { formatAddress, parseWrittenAddress } from '../../domain/site-licence.js';
import { networkAccess, readerAccess } from '../../use-cases/access.js';
import { SUBSCRIPTIONS } from '../../domain/subscription.js';
import { errors } from '../errors.js';
import { errorResponses, exampleLinks, SelfLinks, singleDocument, withExample } from '../jsonapi/documents.js';
import { UserParams } from '../jsonapi/params.js';
import { queryString } from '../jsonapi/links.js';
import type { RouteOptions } from './options.js';
import { noSuchUser } from './users.js';

/** Who may ask: a reader's credential (`read` and above), or a paywall's own (`access`). */
const ACCESS_CHECK = { scope: ['read', 'access'] } as const;

const ReaderAccessResource = Type.Object({
  type: Type.Literal(ACCESS),
  id: Type.String({ description: "The user's id." }),
  attributes: ReaderAccessAttributes,
  links: SelfLinks,
});

const NetworkAccessResource = Type.Object({
  type: Type.Literal(ACCESS),
  id: Type.String({
    description:
      'The address asked about, in its one written form (RFC 5952 for IPv6; an IPv4-mapped address stays IPv6, written ::ffff:10.1.2.3, though licences match it as the IPv4 address it maps).',
  }),
  attributes: AccessAttributes,
  relationships: Type.Object({
    subscriptions: Type.Object(
      {
        data: Type.Array(Type.Object({ type: Type.Literal(SUBSCRIPTIONS), id: Type.String() })),
      },
      { description: 'The active site licences whose ranges hold the address, by id.' },
    ),
  }),
  links: SelfLinks,
});

const NetworkQuery = Type.Object(
  {
    'filter[ip]': Type.String({
      maxLength: 100,
      description:
        'The address to answer for: IPv4 (no leading zeros) or IPv6 (no zone id); an IPv4-mapped IPv6 address is the IPv4 address it maps.',
    }),
  },
  { additionalProperties: false },
);

export const accessRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  app.get(
    '/users/:user_id/access',
    {
      config: ACCESS_CHECK,
      schema: {
        summary: 'Check a reader’s access',
        description:
          'May the reader see online content now, do they get print, until when and by which products: from their subscriptions, their email domain’s site licences and their seats. The access scope may ask it.',
        params: UserParams,
        response: {
          200: withExample(singleDocument(ReaderAccessResource), {
            data: {
              type: ACCESS,
              id: '42',
              attributes: {
                online: true,
                print: true,
                until: null,
                products: ['daily'],
                sources: [{ subscription: '7', via: 'own' }],
              },
              links: exampleLinks('/users/42/access'),
            },
          }),
          ...errorResponses(404, 406),
        },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const now = nowInSeconds();
      const found = await readerAccess(store, user_id, now);
      if (!found) throw noSuchUser(user_id);
      const { access, granted } = found;
      for (const { licence, via } of granted) app.licenceUsage.count(licence, via, now);
      return {
        data: {
          type: ACCESS,
          id: user_id,
          attributes: access,
          links: { self: `${baseUrl(request)}/users/${user_id}/access` },
        },
      };
    },
  );

  app.get(
    '/access',
    {
      config: ACCESS_CHECK,
      schema: {
        summary: 'Check an address’s access',
        description:
          'What the active site licences whose IP ranges hold filter[ip] give, naming each licence. The access scope may ask it.',
        querystring: NetworkQuery,
        response: {
          // A university's site licence (subscription 12) holds the address: online, never print.
          200: withExample(singleDocument(NetworkAccessResource), {
            data: {
              type: ACCESS,
              id: '192.0.2.17',
              attributes: { online: true, print: false, until: '2027-01-31T23:59:59+00:00', products: ['daily'] },
              relationships: { subscriptions: { data: [{ type: SUBSCRIPTIONS, id: '12' }] } },
              links: exampleLinks('/access?filter%5Bip%5D=192.0.2.17'),
            },
          }),
          ...errorResponses(400, 406),
        },
      },
    },
    async (request) => {
      const written = parseWrittenAddress(request.query['filter[ip]']);
      if (!written.ok) throw errors.invalidQueryParameter('filter[ip]', `filter[ip] ${written.problem}`);
      const now = nowInSeconds();
      const { access, licences: granting } = await networkAccess(store, written.value, now);
      for (const licence of granting) app.licenceUsage.count(licence, 'ip', now);
      const base = baseUrl(request);
      // The id is the address as asked, in its one written form: a mapped address stays IPv6 there.
      const id = formatAddress(written.value);
      return {
        data: {
          type: ACCESS,
          id,
          attributes: access,
          relationships: {
            subscriptions: {
              data: granting.map((licence) => ({ type: SUBSCRIPTIONS, id: licence.id })),
            },
          },
          links: { self: `${base}/access?${queryString([['filter[ip]', id]])}` },
        },
      };
    },
  );
};
