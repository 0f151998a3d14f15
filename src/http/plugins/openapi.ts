/**
 * The API describes itself: an OpenAPI 3.1 document at /openapi.json, generated from the same
 * route schemas that validate requests and serialize responses, and a documentation page at
 * /docs whose every asset the service serves itself. The document says what the wire does: every
 * status, media type and response header a route answers with, HEAD beside every GET, and the
 * credentials each route takes (test/support/openapi-contract.ts holds every response the tests
 * receive to it). What routes share (the error answers, the headers, the schemas of resources
 * and documents: openapi-schemas.ts) is written once under components and referred to; the
 * errors any request may meet, once for all operations, as each one's default answer.
 */
import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { IfMatchHeader, IfNoneMatchHeader } from '../jsonapi/etag.js';
import { headersOf, RATE_LIMIT_HEADERS, RESPONSE_HEADERS, type ResponseHeader } from '../jsonapi/response-headers.js';
import { takesIdempotencyKey } from './idempotency.js';

import { ErrorDocument, isOptionalBody } from '../jsonapi/documents.js';
import { JSONAPI } from './media-types.js';
import { hoistRepeatedResponses, statusName } from './openapi-components.js';
import { withoutValidatorMessages, withSharedSchemas } from './openapi-schemas.js';

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
  // Written by Node's parser's handler before any route is found (error-handling.ts).
  408: ErrorDocument,
  414: ErrorDocument,
  // By credential, or by address for requests without one.
  429: ErrorDocument,
  431: ErrorDocument,
  500: ErrorDocument,
  503: ErrorDocument,
};
const CREDENTIAL_ERRORS = { 401: ErrorDocument, 403: ErrorDocument };
const BODY_ERRORS = { 413: ErrorDocument, 415: ErrorDocument, 422: ErrorDocument };

/** The methods that may change something (and may carry a body). */
const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

const TAGS: [RegExp, string][] = [
  [/^\/(sign-ins|password-resets)$|\/password-reset-tokens$/, 'sign-in'],
  [/\/(holds|delivery-complaints|temporary-addresses)\b|^\/(deliveries|reports\/draw)/, 'print'],
  [/^\/users\/:user_id\/newsletter-consents|^\/links\//, 'newsletter consents'],
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

/** What the document is told of a route beyond its schema. */
interface RouteFacts {
  /** The scopes a credential needs; none for a public route. */
  scopes: readonly string[] | undefined;
  /** The headers the route's own answers carry, by status. */
  headers: Map<string, readonly ResponseHeader[]>;
}

export interface OpenApiOptions {
  /** The name of the console's session cookie (use-cases/staff/cookie.ts), which depends on https. */
  sessionCookie: string;
}

/**
 * The document, and every route's schema completed with what holds for all of them: no query
 * parameters unless declared, the JSON:API media types, the error statuses the shared hooks
 * answer, the credentials needed. Registered before the routes, so it sees each of them.
 */
export const openApi = fp<OpenApiOptions>(
  async (app, options) => {
    const facts = new Map<string, RouteFacts>();
    completeRouteSchemas(app, facts);
    await serveDocument(app, facts, options);
  },
  { name: 'openapi' },
);

/** `facts` gathers, by operation (`post /users/{user_id}/…`), what the document adds to each. */
function completeRouteSchemas(app: FastifyInstance, facts: Map<string, RouteFacts>): void {
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || route.url.startsWith('/console')) {
      route.config = { ...route.config, scope: 'public', ownMediaType: true };
      route.schema = { ...route.schema, hide: true };
      return;
    }
    const schema = route.schema ?? {};
    const isPublic = route.config?.scope === 'public';
    const methods = ([] as string[]).concat(route.method);
    // A body may come with any unsafe method, declared or not (expire, redeliver): it is parsed,
    // bounded and checked for its shape all the same. Any Content-Type is held to the media types.
    const takesBody = schema.body !== undefined || methods.some((m) => UNSAFE.has(m.toLowerCase()));
    // Every write to one resource honours If-Match.
    const conditional = methods.some((m) => ['PUT', 'PATCH', 'DELETE'].includes(m));
    const idempotent = methods.some((m) => takesIdempotencyKey(m, route.url)) && !route.config?.showsSecret;
    // A read that may answer 304 (see jsonapi/etag.ts) honours If-None-Match.
    const notModifiable = (schema.response as Record<string, unknown> | undefined)?.[304] !== undefined;
    const response: Record<string, unknown> = {
      ...EVERY_ROUTE_ERRORS,
      ...(isPublic ? {} : CREDENTIAL_ERRORS),
      ...(route.config?.ownMediaType ? {} : { 415: ErrorDocument }),
      // A path parameter its schema refuses names no record (validation.ts).
      ...(route.url.includes(':') ? { 404: ErrorDocument } : {}),
      ...(takesBody ? BODY_ERRORS : {}),
      ...(conditional ? { 412: ErrorDocument } : {}),
      ...(idempotent ? { 409: ErrorDocument, 422: ErrorDocument } : {}),
      ...(schema.response as object | undefined),
    };
    for (const method of methods) {
      const scope = route.config?.scope ?? (['GET', 'HEAD'].includes(method) ? 'read' : 'write');
      facts.set(operationKey(method, route.url), {
        scopes: scope === 'public' ? undefined : ([] as string[]).concat(scope),
        headers: new Map(Object.entries(response).map(([status, answer]) => [status, headersOf(answer)])),
      });
    }
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
      response,
      // Marked so that the document can tell an optional body from a required one.
      ...(isOptionalBody(schema.body) ? { 'x-optional-body': true } : {}),
    };
  });
}

function operationKey(method: string, fastifyUrl: string): string {
  return `${method.toLowerCase()} ${fastifyUrl.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
}

/** `Error404`… are meaningless to a reader: `NotFound`, `TooManyRequests`. */
const REF = {
  response: (status: string) => `#/components/responses/${statusName(status)}`,
  header: (name: ResponseHeader) => `#/components/headers/${name}`,
};

/** The headers each error answer may carry, besides those of a credential's rate. */
const ERROR_HEADERS: Record<string, readonly ResponseHeader[]> = {
  401: ['WWW-Authenticate'],
  405: ['Allow'],
  429: ['Retry-After', ...RATE_LIMIT_HEADERS],
  503: ['Retry-After'],
};
/** Answered before a credential is read (or because there is none): no rate-limit headers. */
const BEFORE_CREDENTIALS = new Set(['401', '408', '414', '431']);
/** Written by Node's parser's handler, before any request exists: no X-Request-Id. */
const BEFORE_REQUEST = new Set(['408', '431']);

function headerRefs(names: Iterable<ResponseHeader>) {
  const unique = [...new Set(names)];
  return unique.length === 0 ? undefined : Object.fromEntries(unique.map((n) => [n, { $ref: REF.header(n) }]));
}

/** The headers an error answer of `status` may carry. */
const errorHeaders = (status: string): ResponseHeader[] => [
  ...(ERROR_HEADERS[status] ?? []),
  ...(BEFORE_CREDENTIALS.has(status) ? [] : RATE_LIMIT_HEADERS),
  ...(BEFORE_REQUEST.has(status) ? [] : (['X-Request-Id'] as const)),
];

/** The error answers every route shares, once: a JSON:API error document and their headers. */
function errorResponses(statuses: Iterable<string>) {
  return Object.fromEntries(
    [...statuses].sort().map((status) => {
      const headers = headerRefs(errorHeaders(status));
      return [
        statusName(status),
        {
          description: `${STATUS_CODES[Number(status)]}: the errors, each with its code.`,
          ...(headers ? { headers } : {}),
          content: { [JSONAPI]: { schema: { $ref: '#/components/schemas/ErrorDocument' } } },
        },
      ];
    }),
  );
}

/**
 * The error answers that come from the hooks every request passes, whatever the operation does:
 * each operation declares them at once as its `default` answer, which names them (`x-statuses`,
 * each status with the response that describes it) rather than listing each at every operation.
 * 403 is one of them only beside 401, where it says the credential's scope falls short (the scopes
 * are the operation's `security`). An operation lists the statuses that say something of it: a
 * 400 or 403 of its own (a public route's refusal), 404 (its path), 409, 412, 413, 415, 422 (its
 * body, its conditions, its retries).
 */
const COMMON_ERRORS = ['400', '401', '403', '406', '408', '414', '429', '431', '500', '503'];

/** The `default` answer standing for `statuses`, named by the common ones it leaves out (`CommonErrorsWithout401`). */
function commonErrorsName(statuses: readonly string[]): string {
  const without = COMMON_ERRORS.filter((status) => !statuses.includes(status));
  return `CommonErrors${without.length > 0 ? `Without${without.join('And')}` : ''}`;
}

/**
 * The `default` answers the operations refer to: a JSON:API error document with every header one
 * of its statuses may carry, and `x-statuses`, what each of them is exactly (its headers too).
 */
function commonErrorResponses(sets: Iterable<readonly string[]>) {
  return Object.fromEntries(
    [...sets].map((statuses) => {
      const named = statuses.map((status) => `${status} ${STATUS_CODES[Number(status)]}`).join(', ');
      const headers = headerRefs(statuses.flatMap(errorHeaders));
      return [
        commonErrorsName(statuses),
        {
          description:
            `Errors any request may meet, whatever the operation: ${named}. Each is a JSON:API error ` +
            'document with the headers of its status (x-statuses: each status, and the response that ' +
            'describes it). The operation lists its other statuses; it answers none but these and those.',
          'x-statuses': Object.fromEntries(statuses.map((status) => [status, { $ref: REF.response(status) }])),
          ...(headers ? { headers } : {}),
          content: { [JSONAPI]: { schema: { $ref: '#/components/schemas/ErrorDocument' } } },
        },
      ];
    }),
  );
}

/**
 * Moves an operation's common errors (those of COMMON_ERRORS it answers as every route does, by
 * the shared response) into its `default` answer; the statuses it stands for, by their name.
 */
function foldCommonErrors(responses: Record<string, Response>, sets: Map<string, readonly string[]>): void {
  const shared = (status: string) => responses[status]?.$ref === REF.response(status);
  const statuses = COMMON_ERRORS.filter((status) => shared(status) && (status !== '403' || shared('401')));
  if (statuses.length === 0 || responses.default !== undefined) return;
  for (const status of statuses) delete responses[status];
  const name = commonErrorsName(statuses);
  sets.set(name, statuses);
  responses.default = { $ref: `#/components/responses/${name}` };
}

interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: unknown }>;
}
interface Operation {
  responses: Record<string, Response>;
  requestBody?: { required?: boolean; content?: Record<string, { example?: unknown }> };
  security?: Record<string, string[]>[];
  'x-optional-body'?: boolean;
  [key: string]: unknown;
}

/** Who may call an operation: a secret (Bearer or Basic) or the console's cookie, with its CSRF token to change anything. */
function securityOf(method: string, scopes: readonly string[]): Record<string, string[]>[] {
  // The scopes of one requirement are all needed, so a route that takes any of several scopes
  // (the access checks: read or access) lists a requirement for each.
  return ['bearer', 'basic', 'console'].flatMap((scheme) =>
    scopes.map((scope) =>
      scheme === 'console' && UNSAFE.has(method) ? { console: [scope], csrf: [] } : { [scheme]: [scope] },
    ),
  );
}

/** The description @fastify/swagger gives an answer whose schema has none. */
const SWAGGER_PLACEHOLDER = 'Default Response';

/** What most operations take, the reads: the document's default, which an operation overrides. */
const READ_SECURITY = securityOf('get', ['read']);

/**
 * Completes the generated operations with what the route schemas cannot say: each error answer
 * as a reference to the shared one, the headers of each answer, the credentials by scope, and
 * HEAD beside each GET (the same answers and headers, with no body).
 */
function completeOperations(paths: Record<string, Record<string, Operation>>, facts: Map<string, RouteFacts>) {
  const errorStatuses = new Set<string>();
  const commonErrors = new Map<string, readonly string[]>();
  const errorSchema = JSON.stringify(ErrorDocument);
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const fact = facts.get(`${method} ${path}`);
      if (operation['x-optional-body'] && operation.requestBody) operation.requestBody.required = false;
      // application/json takes the same body as JSON:API's own media type: its example is shown once, there.
      // (Swagger writes one media object under each type: the others become copies without it.)
      const content = operation.requestBody?.content ?? {};
      for (const type of Object.keys(content).slice(1)) {
        const { example: _shown, ...media } = content[type]!;
        content[type] = media;
      }
      delete operation['x-optional-body'];
      // A read's credentials are the document's default (READ_SECURITY); a public route overrides it with none.
      const security = fact?.scopes ? securityOf(method, fact.scopes) : [];
      if (JSON.stringify(security) !== JSON.stringify(READ_SECURITY)) operation.security = security;
      const notModifiable = operation.responses['304'] !== undefined;
      for (const [status, response] of Object.entries(operation.responses)) {
        // PUT and PATCH of one route share their answers: the first of them has completed them.
        if (response.$ref !== undefined) continue;
        // A route of its own media type has its errors generated under application/json: they are JSON:API too.
        const schema = Object.values(response.content ?? {})[0]?.schema;
        if (Number(status) >= 400 && JSON.stringify(schema) === errorSchema) {
          errorStatuses.add(status);
          operation.responses[status] = { $ref: REF.response(status) };
          continue;
        }
        const headers = headerRefs([
          ...(fact?.headers.get(status) ?? []),
          // answeredNotModified (etag.ts) gives the ETag with the whole representation too.
          ...(notModifiable && status === '200' ? (['ETag'] as const) : []),
          ...(fact?.scopes ? RATE_LIMIT_HEADERS : []),
          'X-Request-Id',
        ]);
        // Swagger's placeholder for an answer described nowhere says nothing: its status's name says as much.
        const description =
          response.description === SWAGGER_PLACEHOLDER ? STATUS_CODES[Number(status)] : response.description;
        if (headers) operation.responses[status] = { ...response, description, headers };
      }
      foldCommonErrors(operation.responses, commonErrors);
    }
    const get = operations.get;
    if (get) operations.head = headOf(get);
  }
  return { errorStatuses, commonErrors: commonErrors.values() };
}

function headOf(get: Operation): Operation {
  const responses = Object.fromEntries(
    Object.entries(get.responses).map(([status, { $ref, description, headers }]) => [
      status,
      $ref ? { $ref } : { description: description ?? '', ...(headers ? { headers } : {}) },
    ]),
  );
  const { requestBody: _none, responses: _body, operationId: _id, summary, description: _text, ...rest } = get;
  return {
    ...rest,
    summary: `${summary ?? 'Read'}: headers only`,
    description: 'As GET, without the body.',
    responses,
  };
}

async function serveDocument(
  app: FastifyInstance,
  facts: Map<string, RouteFacts>,
  { sessionCookie }: OpenApiOptions,
): Promise<void> {
  await app.register(swagger, {
    transformObject: (documents) => {
      const document = 'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject;
      const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
      const { errorStatuses, commonErrors } = completeOperations(paths, facts);
      const components = (document as { components?: Record<string, object> }).components ?? {};
      const shared = withSharedSchemas(withoutValidatorMessages(paths as never), {
        ...components.schemas,
        ErrorDocument,
      } as never);
      // 405 is no operation's: it answers the methods a path does not list (see the description).
      const responses = { ...errorResponses([...errorStatuses, '405']), ...commonErrorResponses(commonErrors) };
      const parameters = {};
      const requestBodies = {};
      const examples = {};
      hoistRepeatedResponses(shared.paths, { responses, parameters, requestBodies, examples });
      document.paths = shared.paths as typeof document.paths;
      (document as { components?: object }).components = {
        ...components,
        schemas: shared.schemas,
        responses,
        parameters,
        requestBodies,
        examples,
        headers: RESPONSE_HEADERS,
      };
      return document;
    },
    openapi: {
      openapi: '3.1.0',
      security: READ_SECURITY,
      info: {
        title: 'circulation',
        version: '1',
        description:
          'User records, their subscriptions and the catalogue of products and newsletters behind a ' +
          'JSON:API interface, with the access check a paywall asks. Every request but the public ones ' +
          '(health, this document and its page, sign-ins to the console) presents a credential: a secret ' +
          'whose scopes the route names, or the console’s session cookie (with X-CSRF-Token to change ' +
          'anything). Every response carries X-Request-Id (but 408 and 431, written before a request ' +
          'exists); a method a path does not list is answered 405 with Allow. An operation lists the ' +
          'statuses that are its own; its default answer stands for the errors any may give, and names them ' +
          '(x-statuses).',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <secret>' },
          basic: { type: 'http', scheme: 'basic', description: 'HTTP Basic with the secret as password' },
          console: {
            type: 'apiKey',
            in: 'cookie',
            name: sessionCookie,
            description: 'A staff member’s console session (POST /staff-sessions), with the scopes of their role.',
          },
          csrf: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description: 'The csrfToken of the console session; needed with its cookie for every change.',
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  let served: string | undefined;
  app.get(
    '/openapi.json',
    {
      config: { scope: 'public', ownMediaType: true },
      schema: {
        summary: 'Read this document',
        description:
          'The OpenAPI 3.1 document of every route, generated from the schemas that validate requests and answers; /docs renders it. Public.',
        response: {
          200: {
            description: 'The OpenAPI 3.1 document.',
            content: { [OPENAPI_MEDIA_TYPE]: { schema: Type.Object({}) } },
          },
        },
      },
    },
    // Written once: the routes are all registered by the time it is first asked for.
    async (_request, reply) => reply.type(OPENAPI_MEDIA_TYPE).send((served ??= JSON.stringify(app.swagger()))),
  );
}

/** As Fastify writes a JSON type. */
const OPENAPI_MEDIA_TYPE = 'application/json; charset=utf-8';
