/**
 * The API describes itself: an OpenAPI 3.1 document at /openapi.json, generated from the same
 * route schemas that validate requests and serialize responses, and a documentation page at
 * /docs whose every asset the service serves itself.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { IfMatchHeader, IfNoneMatchHeader } from '../jsonapi/etag.js';
import { takesIdempotencyKey } from './idempotency.js';

import { ErrorDocument, isOptionalBody } from '../jsonapi/documents.js';
import { JSONAPI } from './media-types.js';

const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Makes a retry safe: the same key and request get the first response again (kept 24 hours).',
    }),
  ),
});

const NoQueryParameters = Type.Object({}, { additionalProperties: false });

/** Answers any route may give, whatever it does: they come from the hooks every request passes. */
const EVERY_ROUTE_ERRORS = {
  400: ErrorDocument,
  406: ErrorDocument,
  414: ErrorDocument,
  // By credential, or by address for requests without one.
  429: ErrorDocument,
  500: ErrorDocument,
  503: ErrorDocument,
};
const CREDENTIAL_ERRORS = { 401: ErrorDocument, 403: ErrorDocument };
const BODY_ERRORS = { 413: ErrorDocument, 415: ErrorDocument, 422: ErrorDocument };

const TAGS: [RegExp, string][] = [
  [/^\/(sign-ins|password-resets)$|\/password-reset-tokens$/, 'sign-in'],
  [/\/(holds|delivery-complaints|temporary-addresses)\b|^\/(deliveries|reports\/draw)/, 'print'],
  [/^\/users\/:user_id\/subscriptions/, 'subscriptions'],
  [/^\/users\/:user_id\/access/, 'access'],
  [/^\/products/, 'products'],
  [/^\/newsletters/, 'newsletters'],
  [/^\/users/, 'users'],
  [/^\/api-keys/, 'credentials'],
  [/^\/audit-events/, 'audit'],
  [/^\/events/, 'events'],
  [/^\/webhooks/, 'webhooks'],
  [/^\/(health|metrics)/, 'operations'],
];

/**
 * The document, and every route's schema completed with what holds for all of them: no query
 * parameters unless declared, the JSON:API media types, the error statuses the shared hooks
 * answer, the credentials needed. Registered before the routes, so it sees each of them.
 */
export const openApi = fp(
  async (app) => {
    const optionalBodies = new Set<string>();
    completeRouteSchemas(app, optionalBodies);
    await serveDocument(app, optionalBodies);
  },
  { name: 'openapi' },
);

/** `optionalBodies` gathers the operations (`post /users/{user_id}/…`) whose body may be left out. */
function completeRouteSchemas(app: FastifyInstance, optionalBodies: Set<string>): void {
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || route.url.startsWith('/console')) {
      route.config = { ...route.config, scope: 'public', ownMediaType: true };
      route.schema = { ...route.schema, hide: true };
      return;
    }
    const schema = route.schema ?? {};
    const isPublic = route.config?.scope === 'public';
    const hasBody = schema.body !== undefined;
    const methods = ([] as string[]).concat(route.method);
    if (isOptionalBody(schema.body)) {
      for (const method of methods) optionalBodies.add(operationKey(method, route.url));
    }
    // Every write to one resource honours If-Match.
    const conditional = methods.some((m) => ['PUT', 'PATCH', 'DELETE'].includes(m));
    const idempotent = methods.some((m) => takesIdempotencyKey(m, route.url)) && !route.config?.showsSecret;
    // A read that may answer 304 (see jsonapi/etag.ts) honours If-None-Match.
    const notModifiable = (schema.response as Record<string, unknown> | undefined)?.[304] !== undefined;
    route.schema = {
      querystring: NoQueryParameters,
      ...(conditional || idempotent || notModifiable
        ? {
            headers: Type.Object({
              ...(conditional ? IfMatchHeader.properties : {}),
              ...(idempotent ? IdempotencyKeyHeader.properties : {}),
              ...(notModifiable ? IfNoneMatchHeader.properties : {}),
            }),
          }
        : {}),
      ...schema,
      tags: TAGS.find(([pattern]) => pattern.test(route.url))?.slice(1) as string[] | undefined,
      ...(route.config?.ownMediaType ? {} : { consumes: [JSONAPI, 'application/json'], produces: [JSONAPI] }),
      ...(isPublic ? {} : { security: [{ bearer: [] }, { basic: [] }] }),
      response: {
        ...EVERY_ROUTE_ERRORS,
        ...(isPublic ? {} : CREDENTIAL_ERRORS),
        ...(hasBody ? BODY_ERRORS : {}),
        ...(conditional ? { 412: ErrorDocument } : {}),
        ...(idempotent ? { 409: ErrorDocument, 422: ErrorDocument } : {}),
        ...(schema.response as object | undefined),
      },
    };
  });
}

function operationKey(method: string, fastifyUrl: string): string {
  return `${method.toLowerCase()} ${fastifyUrl.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
}

type Operations = Record<string, Record<string, { requestBody?: { required?: boolean } }>>;

async function serveDocument(app: FastifyInstance, optionalBodies: ReadonlySet<string>): Promise<void> {
  await app.register(swagger, {
    // @fastify/swagger marks every body required, as Fastify's own validation would have it.
    transformObject: (documents) => {
      const document = 'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject;
      const paths = (document.paths ?? {}) as Operations;
      for (const [path, operations] of Object.entries(paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (optionalBodies.has(`${method} ${path}`) && operation.requestBody) operation.requestBody.required = false;
        }
      }
      return document;
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'circulation',
        version: '1',
        description:
          'User records, their subscriptions and the catalogue of products and newsletters behind a ' +
          'JSON:API interface, with the access check a paywall asks. Every request but the ' +
          'public ones (health, metrics, this document) presents a credential.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <secret>' },
          basic: { type: 'http', scheme: 'basic', description: 'HTTP Basic with the secret as password' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get(
    '/openapi.json',
    { config: { scope: 'public', ownMediaType: true }, schema: { hide: true } },
    async (_request, reply) => reply.type('application/json').send(app.swagger()),
  );
}
