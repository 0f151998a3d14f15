/**
 * The shared schemas of the OpenAPI document: a schema more than one route writes is written once
 * under components and referred to, by a name that says what it is; nothing but a schema becomes a
 * reference, and one cheaper written out than referred to stays where it is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hoistRepeatedSchemas } from '../../../src/http/plugins/openapi-schemas.js';

const padding = (name: string) => ({ type: 'string', description: `${name} `.repeat(20) });

const resource = (type: string) => ({
  type: 'object',
  properties: {
    type: { type: 'string', enum: [type] },
    id: { type: 'string' },
    attributes: { type: 'object', properties: { name: padding('name'), email: padding('email') } },
  },
});

const document = (data: object) => ({ type: 'object', properties: { data } });
const answer = (schema: object) => ({ responses: { 200: { content: { 'application/vnd.api+json': { schema } } } } });

describe('hoistRepeatedSchemas', () => {
  it('writes a resource two routes answer once, named after its type, and refers to it from both, its parts inline', () => {
    const paths: any = {
      '/users/{id}': { get: answer(document(resource('users'))) },
      '/users': { get: answer(document({ type: 'array', items: resource('users') })) },
    };
    const schemas: any = {};
    hoistRepeatedSchemas(paths, schemas);
    const one = paths['/users/{id}'].get.responses[200].content['application/vnd.api+json'].schema;
    const list = paths['/users'].get.responses[200].content['application/vnd.api+json'].schema;
    assert.deepEqual(one.properties.data, { $ref: '#/components/schemas/UsersResource' });
    assert.deepEqual(list.properties.data.items, { $ref: '#/components/schemas/UsersResource' });
    assert.deepEqual(schemas.UsersResource, resource('users'));
  });

  it('refers to a schema already under components by its name, rather than writing it again', () => {
    const errors = resource('errors');
    const paths: any = { '/a': { get: answer(errors) }, '/b': { get: answer(errors) } };
    const schemas: any = { ErrorDocument: errors };
    hoistRepeatedSchemas(paths, schemas);
    assert.deepEqual(Object.keys(schemas), ['ErrorDocument']);
    assert.deepEqual(paths['/b'].get.responses[200].content['application/vnd.api+json'].schema, {
      $ref: '#/components/schemas/ErrorDocument',
    });
  });

  it('names a request body by the write it makes, and a second schema of one name with a number', () => {
    const body = (schema: object) => ({ requestBody: { content: { 'application/vnd.api+json': { schema } } } });
    const other = { ...resource('users'), required: ['type'] };
    const paths: any = {
      '/a': { post: body(document(resource('users'))), patch: body(document(other)) },
      '/b': { post: body(document(resource('users'))), patch: body(document(other)) },
    };
    const schemas: any = {};
    hoistRepeatedSchemas(paths, schemas);
    // The two documents differ, the attributes they hold do not: shared, named where first met.
    assert.deepEqual(Object.keys(schemas).sort(), [
      'UsersCreateAttributes',
      'UsersCreateDocument',
      'UsersUpdateDocument',
    ]);
    const same: any = { '/c': { post: body(document(other)) }, '/d': { post: body(document(other)) } };
    hoistRepeatedSchemas(same, schemas);
    assert.ok(schemas.UsersCreateDocument2, Object.keys(schemas).join(', '));
  });

  it('never makes a map of properties or an enum a reference, and leaves inline a schema cheaper written out than referred to', () => {
    const small = { type: 'object', properties: { id: { type: 'string' } } };
    const paths: any = {
      '/a': { get: answer(small) },
      '/b': { get: answer(small) },
      '/c': { get: answer({ type: 'object', properties: resource('users').properties }) },
      '/d': { get: answer({ type: 'string', properties: resource('users').properties }) },
    };
    const schemas: any = {};
    hoistRepeatedSchemas(paths, schemas);
    assert.deepEqual(paths['/a'].get.responses[200].content['application/vnd.api+json'].schema, small);
    for (const path of ['/c', '/d']) {
      const { properties } = paths[path].get.responses[200].content['application/vnd.api+json'].schema;
      assert.equal(properties.$ref, undefined);
      // The attributes, a schema in a map of properties, are shared.
      assert.deepEqual(properties.attributes, { $ref: '#/components/schemas/UsersAttributes' });
    }
  });
});
