/**
 * Schemas of JSON:API documents, built around a resource's attribute schemas: what a request
 * must send and what a response carries. Routes declare these, so the same definitions
 * validate requests, serialize responses and (later) document the API.
 */
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { isRecord, StringEnum } from '../../domain/schema.js';
import { rulesOf, withRules } from '../../domain/validation.js';
import { ERROR_CODES } from '../errors.js';

const NoRelationships = Type.Object({}, { additionalProperties: false });

/** Any object: written as no more than that, as every request body's schema holds several. */
const AnyObject = Type.Unsafe<Record<string, unknown>>({ type: 'object' });

const ResourceMeta = Type.Optional(AnyObject);

/** Top-level members a client may send beside `data`; the service ignores them. */
const DocumentExtras = { meta: Type.Optional(AnyObject), jsonapi: Type.Optional(AnyObject) };

/** A document whose attributes' rules (see domain/validation.ts) apply to the document too. */
function withAttributeRules<D extends TSchema>(document: D, attributes: TSchema): D {
  const rules = rulesOf(attributes);
  if (!rules) return document;
  return withRules(document, (body) => rules(isRecord(body) && isRecord(body.data) ? body.data.attributes : undefined));
}

/**
 * `schema`, with an example of what it holds: the OpenAPI document shows it on the media type, and
 * a test holds it to the schema. Set in place, so that what marks the schema (its rules, an
 * optional body) stays with it.
 */
export function withExample<T extends TSchema>(schema: T, example: Static<T>): T {
  (schema as TSchema & { examples: unknown[] }).examples = [example];
  return schema;
}

/**
 * Where the examples of the OpenAPI document are served from: every link in them is absolute, as
 * the service writes it. The examples share one cast (a reader, Ada, user 42; her subscription 7
 * to the product `daily`; …), each kept beside its resource's schema.
 */
export const EXAMPLE_BASE = 'https://circulation.example';

/** The links of an example resource or list at `path`. */
export const exampleLinks = (path: string) => ({ self: `${EXAMPLE_BASE}${path}` });

const optionalBodies = new WeakSet<object>();

/**
 * The body schema `schema`, marked as one a request may also leave out: validation lets an
 * absent body through (the handler sees null) and the OpenAPI document says it is optional.
 */
export function optionalBody<S extends object>(schema: S): S {
  optionalBodies.add(schema);
  return schema;
}

export function isOptionalBody(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && optionalBodies.has(schema);
}

/** A document creating a resource: `id` is accepted by the schema only to be refused as client-generated. */
export function createDocument<T extends string, A extends TSchema, R extends TObject = typeof NoRelationships>(
  type: T,
  attributes: A,
  relationships?: R,
) {
  return creation(
    type,
    attributes,
    relationships,
    Type.String({ description: 'Client-generated ids are refused with 403.' }),
  );
}

/** A document creating a resource whose id the client may choose (`id`), or leave to the service. */
export function createDocumentWithId<T extends string, A extends TSchema, I extends TSchema>(
  type: T,
  attributes: A,
  id: I,
) {
  return creation(type, attributes, undefined, id);
}

function creation<T extends string, A extends TSchema, R extends TObject, I extends TSchema>(
  type: T,
  attributes: A,
  relationships: R | undefined,
  id: I,
) {
  const document = Type.Object(
    {
      data: Type.Object(
        {
          type: Type.Literal(type),
          id: Type.Optional(id),
          attributes,
          relationships: Type.Optional((relationships ?? NoRelationships) as R),
          meta: ResourceMeta,
        },
        { additionalProperties: false },
      ),
      ...DocumentExtras,
    },
    { additionalProperties: false },
  );
  return withAttributeRules(document, attributes);
}

/** A document updating a resource: `id` must be present and equal to the one in the address. */
export function updateDocument<T extends string, A extends TSchema, R extends TObject = typeof NoRelationships>(
  type: T,
  attributes: A,
  relationships?: R,
) {
  const document = Type.Object(
    {
      data: Type.Object(
        {
          type: Type.Literal(type),
          id: Type.String(),
          attributes: Type.Optional(attributes),
          relationships: Type.Optional((relationships ?? NoRelationships) as R),
          meta: ResourceMeta,
        },
        { additionalProperties: false },
      ),
      ...DocumentExtras,
    },
    { additionalProperties: false },
  );
  return withAttributeRules(document, attributes);
}

/** Every link a response carries: an absolute address, its query percent-encoded (links.ts). */
export const Link = Type.String({ format: 'uri' });

export const SelfLinks = Type.Object({ self: Link });

/** A resource object as responses carry it. */
export function resourceObject<T extends string, A extends TSchema, R extends TObject = typeof NoRelationships>(
  type: T,
  attributes: A,
  relationships?: R,
) {
  return Type.Object({
    type: Type.Literal(type),
    id: Type.String(),
    attributes,
    relationships: Type.Optional((relationships ?? NoRelationships) as R),
    links: SelfLinks,
  });
}

export function singleDocument(resource: TSchema) {
  return Type.Object({ data: resource });
}

export function compoundDocument(resource: TSchema, included: TSchema) {
  return Type.Object({ data: resource, included: Type.Optional(Type.Array(included)) });
}

export const PageLinks = Type.Object({
  self: Link,
  first: Link,
  prev: Type.Optional(Link),
  next: Type.Optional(Link),
});

export function collectionDocument(resource: TSchema, links: TSchema = SelfLinks) {
  return Type.Object({ links, data: Type.Array(resource) });
}

/** A collection that may carry related resources in `included` (a compound document). */
export function compoundCollectionDocument(resource: TSchema, links: TSchema, included: TSchema) {
  return Type.Object({ links, data: Type.Array(resource), included: Type.Optional(Type.Array(included)) });
}

export const ErrorDocument = Type.Object({
  errors: Type.Array(
    Type.Object({
      status: Type.String(),
      code: StringEnum(ERROR_CODES, {
        description: 'What went wrong, as a stable code to switch on (the title and detail are for people).',
      }),
      title: Type.String(),
      detail: Type.Optional(Type.String()),
      source: Type.Optional(
        Type.Object({
          pointer: Type.Optional(Type.String()),
          parameter: Type.Optional(Type.String()),
          header: Type.Optional(Type.String()),
        }),
      ),
    }),
  ),
});

/** The error statuses a route may answer, each with the JSON:API error document. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, ErrorDocument]));
}
