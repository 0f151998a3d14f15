/**
 * /api-keys: admins issue, list, read and revoke credentials. A new credential's secret is in
 * the create response's `meta.secret`, and nowhere ever again.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { issueCredential } from '../../secrets/api-credentials.js';
import { API_KEYS, ApiKeyAttributes, ApiKeyCreateAttributes, type ApiKey } from '../../domain/api-key.js';
import { sentAttributeNames } from '../../domain/audit.js';
import { formatInstant, nowInSeconds } from '../../domain/dates.js';
import { errors } from '../errors.js';
import { auditOf } from '../plugins/auth.js';
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import {
  collectionDocument,
  createDocument,
  errorResponses,
  exampleLinks,
  resourceObject,
  singleDocument,
  withExample,
} from '../jsonapi/documents.js';
import type { RouteOptions } from './options.js';
import { withHeaders } from '../jsonapi/response-headers.js';

const ApiKeyParams = Type.Object({ key_id: Type.String({ pattern: '^[1-9][0-9]{0,14}$' }) });
const ApiKeyResource = resourceObject(API_KEYS, ApiKeyAttributes);

/** The website's backend, which creates readers and signs them in, as /docs shows its credential. */
const WEBSITE = { name: 'Website', scopes: ['write', 'sign-in'] } satisfies Static<typeof ApiKeyCreateAttributes>;
const WebsiteKey = {
  type: API_KEYS,
  id: '3',
  attributes: { ...WEBSITE, rateLimit: null, createdAt: '2026-01-05T09:30:00+00:00', revokedAt: null },
  links: exampleLinks('/api-keys/3'),
} satisfies Static<typeof ApiKeyResource>;
const ADMIN = { scope: 'admin' } as const;
const DENIALS = [401, 403, 406, 429];

export const apiKeyRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  const render = (request: FastifyRequest, key: ApiKey) => ({
    type: API_KEYS,
    id: key.id,
    attributes: {
      name: key.name,
      scopes: key.scopes,
      rateLimit: key.rateLimit,
      createdAt: formatInstant(key.createdAt),
      revokedAt: key.revokedAt === null ? null : formatInstant(key.revokedAt),
    },
    links: { self: `${baseUrl(request)}/api-keys/${key.id}` },
  });

  app.post(
    '/api-keys',
    {
      config: { ...ADMIN, showsSecret: true },
      schema: {
        summary: 'Issue a credential',
        description:
          'Issues an API key with the scopes given; its secret is in this answer’s meta.secret and nowhere ever again. Admins only.',
        body: withExample(createDocument(API_KEYS, ApiKeyCreateAttributes), {
          data: { type: API_KEYS, attributes: WEBSITE },
        }),
        response: {
          201: withHeaders(
            withExample(
              Type.Object({
                data: ApiKeyResource,
                meta: Type.Object({ secret: Type.String({ description: 'Shown this once; only its hash is kept.' }) }),
              }),
              { data: WebsiteKey, meta: { secret: 'circ_3_p8qc4qDTQ8qOMM4A5nJ8Gce34MWE7MEI34o6wf32pe4' } },
            ),
            'Location',
            'ETag',
          ),
          ...errorResponses(400, 409, 413, 415, 422, ...DENIALS),
        },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const { name, scopes, rateLimit = null } = data.attributes;
      const { key, secret } = await issueCredential(
        store,
        { name, scopes, rateLimit },
        auditOf(request, sentAttributeNames(data.attributes)),
      );
      const resource = render(request, key);
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(key.version) })
        .send({ data: resource, meta: { secret } });
    },
  );

  app.get(
    '/api-keys',
    {
      config: ADMIN,
      schema: {
        summary: 'List credentials',
        description: 'Every API key issued, without secrets. Admins only.',
        response: {
          200: withExample(collectionDocument(ApiKeyResource), {
            links: exampleLinks('/api-keys'),
            data: [WebsiteKey],
          }),
          ...errorResponses(...DENIALS),
        },
      },
    },
    async (request) => ({
      links: { self: `${baseUrl(request)}/api-keys` },
      data: (await store.credentials.list()).map((key) => render(request, key)),
    }),
  );

  app.get(
    '/api-keys/:key_id',
    {
      config: ADMIN,
      schema: {
        summary: 'Read a credential',
        description: 'One API key, without its secret. Admins only.',
        params: ApiKeyParams,
        response: {
          200: withExample(singleDocument(ApiKeyResource), { data: WebsiteKey }),
          ...NotModifiedResponse,
          ...errorResponses(404, ...DENIALS),
        },
      },
    },
    async (request, reply) => {
      const key = await store.credentials.get(request.params.key_id);
      if (!key) throw noSuchKey(request.params.key_id);
      if (answeredNotModified(request, reply, key.version)) return reply;
      return reply.send({ data: render(request, key) });
    },
  );

  app.delete(
    '/api-keys/:key_id',
    {
      config: ADMIN,
      schema: {
        summary: 'Revoke a credential',
        description: 'Revokes the API key: it is refused from then on. Admins only.',
        params: ApiKeyParams,
        response: { 204: Type.Null(), ...errorResponses(404, ...DENIALS) },
      },
    },
    async (request, reply) => {
      const revoked = await store.credentials.revoke(
        request.params.key_id,
        nowInSeconds(),
        auditOf(request, ['revokedAt']),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!revoked) throw noSuchKey(request.params.key_id);
      return reply.status(204).send(null);
    },
  );
};

function noSuchKey(id: string) {
  return errors.notFound(`There is no API key with id "${id}".`);
}
