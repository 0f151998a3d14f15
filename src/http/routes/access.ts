/**
 * /users/{user_id}/access: the paywall's question, asked on every page view — may this reader
 * see online content now, do they get the print edition, until when, by which products —
 * answered from their subscriptions active now in one indexed read.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { nowInSeconds } from '../../domain/dates.js';
import { ACCESS, AccessAttributes, accessOf } from '../../domain/entitlement.js';
import { errorResponses, SelfLinks, singleDocument } from '../jsonapi/documents.js';
import { UserParams } from '../jsonapi/params.js';
import type { RouteOptions } from './options.js';
import { noSuchUser } from './users.js';

const AccessResource = Type.Object({
  type: Type.Literal(ACCESS),
  id: Type.String({ description: "The user's id." }),
  attributes: AccessAttributes,
  links: SelfLinks,
});

export const accessRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  app.get(
    '/users/:user_id/access',
    {
      schema: {
        params: UserParams,
        response: { 200: singleDocument(AccessResource), ...errorResponses(404, 406) },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const active = await store.activeSubscriptionsOf(user_id, nowInSeconds());
      if (!active) throw noSuchUser(user_id);
      return {
        data: {
          type: ACCESS,
          id: user_id,
          attributes: accessOf(active),
          links: { self: `${baseUrl(request)}/users/${user_id}/access` },
        },
      };
    },
  );
};
