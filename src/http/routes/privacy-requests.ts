/**
 * /privacy-requests: what readers asked under data protection law (access, erasure, rectification,
 * objection), when each came and when its answer is due (one calendar month later), for the
 * publisher's administrators alone. The list shows the open ones by due date with
 * `filter[open]=true&sort=dueAt`. A request keeps its reader until the reader is erased, then
 * only its kind, its dates and that it was fulfilled.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { USERS } from '../../domain/user.js';
import type { FastifyRequest } from 'fastify';
import { sentAttributeNames } from '../../domain/audit.js';
import { nowInSeconds } from '../../domain/dates.js';
import { failures } from '../../domain/failures.js';
import {
  changedPrivacyRequest,
  newPrivacyRequest,
  PRIVACY_REQUESTS,
  PrivacyRequestAttributes,
  PrivacyRequestCreateAttributes,
  PrivacyRequestRelationships,
  PrivacyRequestRelationshipsRead,
  PrivacyRequestUpdateAttributes,
  toPrivacyRequestAttributes,
  toPrivacyRequestRelationships,
  type StoredPrivacyRequest,
} from '../../domain/privacy-request.js';
import { errors } from '../errors.js';
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
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import { CursorLinks, cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import { PrivacyRequestParams } from '../jsonapi/params.js';
import { withHeaders } from '../jsonapi/response-headers.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';

const PrivacyRequestResource = resourceObject(
  PRIVACY_REQUESTS,
  PrivacyRequestAttributes,
  PrivacyRequestRelationshipsRead,
);
/** Ada asked customer service for a copy of her data: open, due a month after. */
export const ADA_REQUEST = {
  kind: 'access',
  receivedAt: '2026-06-02T14:30:00+00:00',
  notes: 'Asked by phone for a copy of her data.',
} as const;
const ADA_USER = { user: { data: { type: USERS, id: '42' } } } as const;
const AdaRequest = {
  type: PRIVACY_REQUESTS,
  id: '4',
  attributes: { ...ADA_REQUEST, dueAt: '2026-07-02T14:30:00+00:00', completedAt: null, readerErasedAt: null },
  relationships: ADA_USER,
  links: exampleLinks('/privacy-requests/4'),
} satisfies Static<typeof PrivacyRequestResource>;
const PrivacyRequestDocument = withExample(singleDocument(PrivacyRequestResource), { data: AdaRequest });
const ADMIN = { scope: 'admin' } as const;
const DENIALS = [401, 403, 406, 429];

const ListQuery = Type.Object(
  {
    'filter[open]': Type.Optional(
      Type.String({
        pattern: '^(true|false)$',
        errorMessage: { pattern: 'must be true or false' },
        description: 'true: only the requests not completed; false: only those completed.',
      }),
    ),
    sort: Type.Optional(
      Type.String({
        pattern: '^(id|dueAt)$',
        errorMessage: { pattern: 'can only be id or dueAt' },
        description: 'id (the default: oldest first) or dueAt (soonest due first, then by id).',
      }),
    ),
    'page[after]': PageAfter('a privacy request'),
    'page[size]': PageSize,
  },
  { additionalProperties: false },
);

export const privacyRequestRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { store, baseUrl }) => {
  const render = (request: FastifyRequest, stored: StoredPrivacyRequest) => ({
    type: PRIVACY_REQUESTS,
    id: stored.id,
    attributes: toPrivacyRequestAttributes(stored),
    relationships: toPrivacyRequestRelationships(stored),
    links: { self: `${baseUrl(request)}/privacy-requests/${stored.id}` },
  });
  const noSuchRequest = (id: string) => errors.notFound(`There is no privacy request with id "${id}".`);

  app.post(
    '/privacy-requests',
    {
      config: ADMIN,
      schema: {
        summary: 'Record a privacy request',
        description:
          'Records a privacy request about a reader (relationships.user, required). receivedAt is now unless sent; ' +
          'dueAt is one calendar month after it, in UTC (31 January → the last day of February). An unknown user is ' +
          'a 422 at /data/relationships/user.',
        body: withExample(
          createDocument(PRIVACY_REQUESTS, PrivacyRequestCreateAttributes, PrivacyRequestRelationships),
          {
            data: { type: PRIVACY_REQUESTS, attributes: ADA_REQUEST, relationships: ADA_USER },
          },
        ),
        response: {
          201: withHeaders(PrivacyRequestDocument, 'Location', 'ETag'),
          ...errorResponses(400, 409, 413, 415, 422, ...DENIALS),
        },
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const user = data.relationships?.user?.data;
      if (!user) {
        throw failures.invalid([{ pointer: '/data/relationships/user', detail: 'is required: the reader who asked' }]);
      }
      const created = await store.privacyRequests.create(
        user.id,
        newPrivacyRequest(data.attributes, nowInSeconds()),
        auditOf(request, sentAttributeNames(data.attributes, data.relationships)),
      );
      if (!created) {
        throw failures.invalid([
          { pointer: '/data/relationships/user/data/id', detail: `there is no user ${user.id}` },
        ]);
      }
      const resource = render(request, created);
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(created.version) })
        .send({ data: resource });
    },
  );

  app.get(
    '/privacy-requests',
    {
      config: ADMIN,
      schema: {
        summary: 'List privacy requests',
        description:
          'What readers asked under data protection law; filter[open]=true&sort=dueAt lists the open ones by due date. Admins only.',
        querystring: ListQuery,
        response: {
          200: withExample(collectionDocument(PrivacyRequestResource, CursorLinks), {
            links: exampleLinks('/privacy-requests?filter%5Bopen%5D=true&sort=dueAt'),
            data: [AdaRequest],
          }),
          ...errorResponses(400, ...DENIALS),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const size = pageSizeOf(query);
      const open = query['filter[open]'];
      const list = await store.privacyRequests.list({
        afterId: query['page[after]'],
        limit: size + 1,
        ...(open === undefined ? {} : { open: open === 'true' }),
        byDueDate: query.sort === 'dueAt',
      });
      const { page, links } = cursorPage(list, size, baseUrl(request), '/privacy-requests', query);
      return { links, data: page.map((stored) => render(request, stored)) };
    },
  );

  app.get(
    '/privacy-requests/:privacy_request_id',
    {
      config: ADMIN,
      schema: {
        summary: 'Read a privacy request',
        description: 'One privacy request, with when it came and when its answer is due. Admins only.',
        params: PrivacyRequestParams,
        response: {
          200: PrivacyRequestDocument,
          ...NotModifiedResponse,
          ...errorResponses(404, ...DENIALS),
        },
      },
    },
    async (request, reply) => {
      const { privacy_request_id } = request.params;
      const stored = await store.privacyRequests.get(privacy_request_id);
      if (!stored) throw noSuchRequest(privacy_request_id);
      if (answeredNotModified(request, reply, stored.version)) return reply;
      return reply.send({ data: render(request, stored) });
    },
  );

  app.route({
    method: ['PATCH', 'PUT'],
    url: '/privacy-requests/:privacy_request_id',
    config: ADMIN,
    schema: {
      summary: 'Update a privacy request',
      description:
        'Changes a privacy request: completedAt closes it (null opens it again); the reader it is about stays. ' +
        'dueAt follows receivedAt.',
      params: PrivacyRequestParams,
      body: withExample(updateDocument(PRIVACY_REQUESTS, PrivacyRequestUpdateAttributes), {
        data: { type: PRIVACY_REQUESTS, id: '4', attributes: { notes: ADA_REQUEST.notes } },
      }),
      response: {
        200: withHeaders(PrivacyRequestDocument, 'ETag'),
        ...errorResponses(400, 404, 409, 412, 413, 415, 422, ...DENIALS),
      },
    },
    handler: async (request, reply) => {
      const { privacy_request_id } = request.params;
      const { data } = request.body;
      if (data.id !== privacy_request_id) throw errors.idConflict();
      const updated = await store.privacyRequests.update(
        privacy_request_id,
        (current) => changedPrivacyRequest(current, data.attributes ?? {}),
        auditOf(request, sentAttributeNames(data.attributes)),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!updated) throw noSuchRequest(privacy_request_id);
      return reply.header('etag', etagOf(updated.version)).send({ data: render(request, updated) });
    },
  });
};
