/**
 * A JSON Schema of JSON:API 1.0 response documents, written from the specification's text
 * (https://jsonapi.org/format/1.0/). Every response body the API tests receive is checked
 * against it, so a response that breaks the document structure fails whatever test saw it.
 */
const member = { type: 'string', pattern: '^[a-zA-Z0-9](?:[-\\w ]*[a-zA-Z0-9])?$' };
const meta = { type: 'object' };
const link = {
  oneOf: [
    { type: 'string', format: 'uri' },
    {
      type: 'object',
      required: ['href'],
      properties: { href: { type: 'string', format: 'uri' }, meta },
      additionalProperties: false,
    },
    { type: 'null' },
  ],
};
const links = { type: 'object', additionalProperties: link };
const resourceIdentifier = {
  type: 'object',
  required: ['type', 'id'],
  properties: { type: member, id: { type: 'string' }, meta },
  additionalProperties: false,
};
const relationship = {
  type: 'object',
  anyOf: [{ required: ['data'] }, { required: ['meta'] }, { required: ['links'] }],
  properties: {
    links,
    data: { oneOf: [{ type: 'null' }, resourceIdentifier, { type: 'array', items: resourceIdentifier }] },
    meta,
  },
  additionalProperties: false,
};
/** Attributes and relationships share one namespace and may not use `relationships`, `links`, `id` or `type`. */
const fieldsNamespace = {
  not: {
    anyOf: [{ required: ['relationships'] }, { required: ['links'] }, { required: ['id'] }, { required: ['type'] }],
  },
};
const resource = {
  type: 'object',
  required: ['type', 'id'],
  properties: {
    type: member,
    id: { type: 'string' },
    attributes: { type: 'object', ...fieldsNamespace, propertyNames: member },
    relationships: { type: 'object', ...fieldsNamespace, propertyNames: member, additionalProperties: relationship },
    links,
    meta,
  },
  additionalProperties: false,
};
const error = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    links,
    status: { type: 'string', pattern: '^[1-5][0-9][0-9]$' },
    code: { type: 'string' },
    title: { type: 'string' },
    detail: { type: 'string' },
    source: {
      type: 'object',
      properties: {
        pointer: { type: 'string', pattern: '^(/[^/]*)*$' },
        parameter: { type: 'string' },
        header: { type: 'string' },
      },
    },
    meta,
  },
  additionalProperties: false,
};

export const jsonApiDocumentSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'JSON:API 1.0 document',
  type: 'object',
  anyOf: [{ required: ['data'] }, { required: ['errors'] }, { required: ['meta'] }],
  not: { required: ['data', 'errors'] },
  properties: {
    data: { oneOf: [{ type: 'null' }, resource, { type: 'array', items: resource }] },
    errors: { type: 'array', minItems: 1, items: error },
    meta,
    links: {
      type: 'object',
      properties: { self: link, related: link, first: link, last: link, prev: link, next: link },
      additionalProperties: link,
    },
    included: { type: 'array', items: resource },
    jsonapi: { type: 'object', properties: { version: { type: 'string' }, meta } },
  },
  dependencies: { included: ['data'] },
  additionalProperties: false,
} as const;
