/**
 * The routes every kind of catalogue record has (/products, /newsletters): the `catalogue` scope
 * or admin creates (under an id of their choosing or one the service draws), changes and deletes
 * them; a credential that reads, or that keeps the catalogue, lists them (paged by id,
 * `filter[active]`) and reads one, with its counts in `meta`. Each kind gives its schemas, how its
 * attributes become values, and its operations (use-cases/catalogue.ts); products.ts and
 * newsletters.ts are those.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sentAttributeNames } from '../../domain/audit.js';
import { CatalogueId, SINGULAR, StoredCatalogueId, type CatalogueRecord } from '../../domain/catalogue.js';
import { nowInSeconds } from '../../domain/dates.js';
import type { Catalogue } from '../../use-cases/catalogue.js';
import { errors } from '../errors.js';
import {
  collectionDocument,
  createDocumentWithId,
  errorResponses,
  exampleLinks,
  singleDocument,
  updateDocument,
  withExample,
} from '../jsonapi/documents.js';
import {
  catalogueExample,
  catalogueResource,
  renderCatalogueRecord,
  type CatalogueShape,
} from '../jsonapi/resources.js';
import { answeredNotModified, etagOf, ifMatchVersions, NotModifiedResponse } from '../jsonapi/etag.js';
import { CursorLinks, cursorPage, PageSize, pageSizeOf } from '../jsonapi/paging.js';
import { auditOf } from '../plugins/auth.js';
import type { RouteOptions } from './options.js';
import { withHeaders } from '../jsonapi/response-headers.js';

/** Products and newsletters change with the `catalogue` scope (a supervisor's) or `admin`. */
const CATALOGUE = { scope: 'catalogue' } as const;
/**
 * They are read with either `catalogue` or `read`: a product tool needs to see what it changes,
 * and must not thereby read the readers, which `read` would also let it.
 */
const CATALOGUE_READ = { scope: ['catalogue', 'read'] } as const;

/** A kind of catalogue record, as its routes see it: its shape, what its attributes are as values, its operations. */
export interface CatalogueKind<R extends CatalogueRecord, V, M> extends CatalogueShape<R> {
  values(attributes: unknown): V;
  /** What an update's attributes change. */
  changes(attributes: object): Partial<V>;
  catalogue: Catalogue<R, V, M>;
}

const Id = {
  ...CatalogueId,
  description: 'An id of your choosing (409 when taken); without one, the service draws one.',
};

export function catalogueRoutes<R extends CatalogueRecord, V, M extends object>(
  kind: CatalogueKind<R, V, M>,
): FastifyPluginAsyncTypebox<RouteOptions> {
  const what = SINGULAR[kind.type];
  const param = `${what}_id`;
  const Params = Type.Object({ [param]: StoredCatalogueId });
  const Resource = catalogueResource(kind);
  const { example } = kind;
  const Document = withExample(singleDocument(Resource), { data: catalogueExample(kind) });
  const ListQuery = Type.Object(
    {
      'filter[active]': Type.Optional(
        Type.String({ pattern: '^(true|false)$', errorMessage: { pattern: 'must be true or false' } }),
      ),
      'page[after]': Type.Optional({ ...StoredCatalogueId, description: `Start after this ${what} id.` }),
      'page[size]': PageSize,
    },
    { additionalProperties: false },
  );
  const notFound = (id: string) => errors.notFound(`There is no ${what} with id "${id}".`);
  const idOf = (request: FastifyRequest) => (request.params as Record<string, string>)[param] as string;

  return async (app, { baseUrl }) => {
    const render = (request: FastifyRequest, record: R, meta?: M) =>
      renderCatalogueRecord(baseUrl(request), kind, record, meta);

    app.post(
      `/${kind.type}`,
      {
        config: CATALOGUE,
        schema: {
          summary: `Create a ${what}`,
          description: `Creates a ${what} under an id of your choosing (409 when taken) or one the service draws. The catalogue scope or admin.`,
          body: withExample(createDocumentWithId(kind.type, kind.schemas.create, Id), {
            data: { type: kind.type, id: example.id, attributes: example.create },
          }),
          response: {
            201: withHeaders(Document, 'Location', 'ETag'),
            ...errorResponses(400, 403, 406, 409, 413, 415, 422),
          },
        },
      },
      async (request, reply) => {
        const { data } = request.body as { data: { id?: string; attributes: object } };
        const record = await kind.catalogue.create(
          data.id,
          kind.values(data.attributes),
          auditOf(request, sentAttributeNames(data.attributes)),
        );
        const resource = render(request, record);
        return reply
          .status(201)
          .headers({ location: resource.links.self, etag: etagOf(record.version) })
          .send({ data: resource });
      },
    );

    app.get(
      `/${kind.type}`,
      {
        config: CATALOGUE_READ,
        schema: {
          summary: `List ${kind.type}`,
          description: `Paged by id (page[after]), filtered by filter[active]. A catalogue or read credential.`,
          querystring: ListQuery,
          response: {
            200: withExample(collectionDocument(Resource, CursorLinks), {
              links: exampleLinks(`/${kind.type}`),
              data: [catalogueExample(kind)],
            }),
            ...errorResponses(400, 406),
          },
        },
      },
      async (request) => {
        const query = request.query as Record<string, string | undefined>;
        const size = pageSizeOf(query);
        const active = query['filter[active]'];
        const records = await kind.catalogue.list({
          afterId: query['page[after]'],
          limit: size + 1,
          ...(active === undefined ? {} : { active: active === 'true' }),
        });
        const { page, links } = cursorPage(records, size, baseUrl(request), `/${kind.type}`, query);
        return { links, data: page.map((record) => render(request, record)) };
      },
    );

    app.get(
      `/${kind.type}/:${param}`,
      {
        config: CATALOGUE_READ,
        schema: {
          summary: `Read a ${what}`,
          description: `One ${what}, with its counts in meta. If-None-Match with its ETag answers 304. A catalogue or read credential.`,
          params: Params,
          response: { 200: Document, ...NotModifiedResponse, ...errorResponses(404, 406) },
        },
      },
      async (request, reply) => {
        const found = await kind.catalogue.read(idOf(request), nowInSeconds());
        if (!found) throw notFound(idOf(request));
        if (answeredNotModified(request, reply, found.record.version)) return reply;
        return reply.send({ data: render(request, found.record, found.meta) });
      },
    );

    app.route({
      method: ['PUT', 'PATCH'],
      url: `/${kind.type}/:${param}`,
      config: CATALOGUE,
      schema: {
        summary: `Update a ${what}`,
        description: `Changes the attributes sent; If-Match with an ETag writes only over that version (412 otherwise). The catalogue scope or admin.`,
        params: Params,
        body: withExample(updateDocument(kind.type, kind.schemas.update), {
          data: { type: kind.type, id: example.id, attributes: example.update },
        }),
        response: { 200: withHeaders(Document, 'ETag'), ...errorResponses(400, 404, 406, 409, 413, 415, 422) },
      },
      handler: async (request, reply) => {
        const id = idOf(request);
        const { data } = request.body as { data: { id: string; attributes?: object } };
        if (data.id !== id) throw errors.idConflict();
        const updated = await kind.catalogue.update(
          id,
          kind.changes(data.attributes ?? {}),
          auditOf(request, sentAttributeNames(data.attributes)),
          ifMatchVersions(request.headers['if-match']),
        );
        if (!updated) throw notFound(id);
        return reply.header('etag', etagOf(updated.version)).send({ data: render(request, updated) });
      },
    });

    app.delete(
      `/${kind.type}/:${param}`,
      {
        config: CATALOGUE,
        schema: {
          summary: `Delete a ${what}`,
          description: `Deletes the ${what}; 409 while it cannot go. The catalogue scope or admin.`,
          params: Params,
          response: { 204: Type.Null(), ...errorResponses(404, 406, 409) },
        },
      },
      async (request, reply) => {
        const id = idOf(request);
        if (!(await kind.catalogue.delete(id, auditOf(request), ifMatchVersions(request.headers['if-match']))))
          throw notFound(id);
        return reply.status(204).send(null);
      },
    );
  };
}
