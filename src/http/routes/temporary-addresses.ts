/**
 * /users/{user_id}/temporary-addresses: where a reader's print goes for a while instead of their
 * own address. Made, moved and deleted only while their dates are open by their cut-off; once one
 * has started, PATCH endDate ends it early. Its rules (domain/temporary-address.ts) run in the
 * store's transaction, with the first date still open worked out when the request came.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sentAttributeNames } from '../../domain/audit.js';
import { nowInSeconds } from '../../domain/dates.js';
import { dateAt, firstOpenDate } from '../../domain/publication.js';
import {
  plannedTemporaryAddress,
  requireDeletable,
  TEMPORARY_ADDRESSES,
  TemporaryAddressCreateAttributes,
  TemporaryAddressUpdateAttributes,
} from '../../domain/temporary-address.js';
import { errors } from '../errors.js';
import { createDocument, errorResponses, singleDocument, updateDocument, withExample } from '../jsonapi/documents.js';
import { etagOf, ifMatchVersions } from '../jsonapi/etag.js';
import { TemporaryAddressParams, UserParams } from '../jsonapi/params.js';
import { cursorPage, PageAfter, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import {
  AdaTemporaryAddress,
  changesMeta,
  datedCollectionDocument,
  datedListExample,
  renderTemporaryAddress,
  TEMPORARY_ADDRESS_EXAMPLE,
  TemporaryAddressResource,
  temporaryAddressPath,
} from '../jsonapi/print-resources.js';
import { withHeaders } from '../jsonapi/response-headers.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';
import { noSuchUser } from './users.js';

const TemporaryAddressDocument = withExample(singleDocument(TemporaryAddressResource), { data: AdaTemporaryAddress });
const ListQuery = Type.Object(
  { 'page[size]': PageSize, 'page[after]': PageAfter('a temporary address') },
  { additionalProperties: false },
);

export const temporaryAddressRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { store, baseUrl, print },
) => {
  const { calendar } = print;
  const noSuchTemporaryAddress = (userId: string, id: string) =>
    errors.notFound(`User ${userId} has no temporary address with id "${id}".`);

  app.post(
    '/users/:user_id/temporary-addresses',
    {
      schema: {
        summary: 'Create a temporary address',
        description:
          "Delivers every print subscription of the reader to this address on these dates instead of the reader's own. " +
          'The start must be open by its cut-off (PAST_CUTOFF); a reader’s temporary addresses never overlap (409 TEMPORARY_ADDRESS_OVERLAP).',
        params: UserParams,
        body: withExample(createDocument(TEMPORARY_ADDRESSES, TemporaryAddressCreateAttributes), {
          data: { type: TEMPORARY_ADDRESSES, attributes: TEMPORARY_ADDRESS_EXAMPLE },
        }),
        response: {
          201: withHeaders(TemporaryAddressDocument, 'Location', 'ETag'),
          ...errorResponses(400, 403, 404, 406, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { user_id } = request.params;
      const { data } = request.body;
      if (data.id !== undefined) throw errors.clientGeneratedId();
      const now = nowInSeconds();
      const firstOpen = firstOpenDate(now, calendar);
      const created = await store.temporaryAddresses.create(
        user_id,
        (others) => plannedTemporaryAddress(undefined, data.attributes, others, firstOpen),
        auditOf(request, sentAttributeNames(data.attributes)),
      );
      if (!created) throw noSuchUser(user_id);
      const resource = renderTemporaryAddress(baseUrl(request), created, dateAt(now, calendar.zone));
      return reply
        .status(201)
        .headers({ location: resource.links.self, etag: etagOf(created.version) })
        .send({ data: resource });
    },
  );

  app.get(
    '/users/:user_id/temporary-addresses',
    {
      schema: {
        summary: 'List a user’s temporary addresses',
        description:
          'Where the reader’s print goes for a while instead of their own address, paged by cursor (page[after]).',
        params: UserParams,
        querystring: ListQuery,
        response: {
          200: withExample(
            datedCollectionDocument(TemporaryAddressResource),
            datedListExample('/users/42/temporary-addresses', AdaTemporaryAddress),
          ),
          ...errorResponses(400, 404, 406),
        },
      },
    },
    async (request) => {
      const { user_id } = request.params;
      const size = pageSizeOf(request.query);
      const list = await store.temporaryAddresses.list(user_id, {
        afterId: request.query['page[after]'],
        limit: size + 1,
      });
      if (!list) throw noSuchUser(user_id);
      const now = nowInSeconds();
      const today = dateAt(now, calendar.zone);
      const { page, links } = cursorPage(list, size, baseUrl(request), temporaryAddressPath(user_id), request.query);
      const data = page.map((stored) => renderTemporaryAddress(baseUrl(request), stored, today));
      return { links, data, meta: changesMeta(now, calendar) };
    },
  );

  app.get(
    '/users/:user_id/temporary-addresses/:temporary_address_id',
    {
      schema: {
        summary: 'Read a temporary address',
        description: 'One temporary address of the user.',
        params: TemporaryAddressParams,
        response: { 200: TemporaryAddressDocument, ...errorResponses(404, 406) },
      },
    },
    async (request, reply) => {
      const { user_id, temporary_address_id } = request.params;
      const stored = await store.temporaryAddresses.get(user_id, temporary_address_id);
      if (!stored) throw noSuchTemporaryAddress(user_id, temporary_address_id);
      // The status moves with the date: an ETag of the version alone would keep yesterday's.
      return reply.send({
        data: renderTemporaryAddress(baseUrl(request), stored, dateAt(nowInSeconds(), calendar.zone)),
      });
    },
  );

  app.route({
    method: ['PATCH', 'PUT'],
    url: '/users/:user_id/temporary-addresses/:temporary_address_id',
    schema: {
      summary: 'Update a temporary address',
      description:
        'Moves its dates or changes its address while they are open by their cut-off. Once it has started, its ' +
        'startDate and address stay (409 ALREADY_STARTED) and only endDate moves, among open dates: how one is ended early.',
      params: TemporaryAddressParams,
      body: withExample(updateDocument(TEMPORARY_ADDRESSES, TemporaryAddressUpdateAttributes), {
        data: { type: TEMPORARY_ADDRESSES, id: '5', attributes: { endDate: '2026-09-19' } },
      }),
      response: {
        200: withHeaders(TemporaryAddressDocument, 'ETag'),
        ...errorResponses(400, 404, 406, 409, 412, 413, 415, 422),
      },
    },
    handler: async (request, reply) => {
      const { user_id, temporary_address_id } = request.params;
      const { data } = request.body;
      if (data.id !== temporary_address_id) throw errors.idConflict();
      const now = nowInSeconds();
      const firstOpen = firstOpenDate(now, calendar);
      const changed = await store.temporaryAddresses.update(
        user_id,
        temporary_address_id,
        (current, others) => plannedTemporaryAddress(current, data.attributes ?? {}, others, firstOpen),
        auditOf(request, sentAttributeNames(data.attributes)),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!changed) throw noSuchTemporaryAddress(user_id, temporary_address_id);
      const resource = renderTemporaryAddress(baseUrl(request), changed, dateAt(now, calendar.zone));
      return reply.header('etag', etagOf(changed.version)).send({ data: resource });
    },
  });

  app.delete(
    '/users/:user_id/temporary-addresses/:temporary_address_id',
    {
      schema: {
        summary: 'Delete a temporary address',
        description:
          'Deletes a temporary address that has not started (its first date still open by its cut-off). One that has ' +
          'started is refused with 409 ALREADY_STARTED, so that where past runs went stays on record: PATCH its ' +
          'endDate to end it early instead.',
        params: TemporaryAddressParams,
        response: { 204: Type.Null(), ...errorResponses(404, 406, 409, 412) },
      },
    },
    async (request, reply) => {
      const { user_id, temporary_address_id } = request.params;
      const firstOpen = firstOpenDate(nowInSeconds(), calendar);
      const deleted = await store.temporaryAddresses.delete(
        user_id,
        temporary_address_id,
        (current) => requireDeletable(current, firstOpen),
        auditOf(request),
        ifMatchVersions(request.headers['if-match']),
      );
      if (!deleted) throw noSuchTemporaryAddress(user_id, temporary_address_id);
      return reply.status(204).send(null);
    },
  );
};
