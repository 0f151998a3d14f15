/**
 * The OpenAPI document: valid OpenAPI 3.1, served without a credential, and complete — every
 * route with its parameters, body, responses and error statuses. (Every API test also checks the
 * responses it receives against it: see test/support/openapi-contract.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startService, type Service } from '../../support/service.js';

let service: Service;
let document: any;
before(async () => {
  service = await startService('SQLite');
  const response = await fetch(`${service.baseUrl}/openapi.json`);
  assert.equal(response.status, 200);
  document = await response.json();
});
after(() => service.close());

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
    assert.equal(document.openapi, '3.1.0');
  });

  it('lists every route the service answers, by method', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'POST /users',
      'GET /users',
      'GET /users/{user_id}',
      'PUT /users/{user_id}',
      'PATCH /users/{user_id}',
      'DELETE /users/{user_id}',
      'POST /users/{user_id}/subscriptions',
      'GET /users/{user_id}/subscriptions',
      'GET /users/{user_id}/subscriptions/{subscription_id}',
      'PUT /users/{user_id}/subscriptions/{subscription_id}',
      'PATCH /users/{user_id}/subscriptions/{subscription_id}',
      'DELETE /users/{user_id}/subscriptions/{subscription_id}',
      'PUT /users/{user_id}/subscriptions/{subscription_id}/expire',
      'POST /api-keys',
      'GET /api-keys',
      'GET /api-keys/{key_id}',
      'DELETE /api-keys/{key_id}',
      'GET /audit-events',
      'GET /users/{user_id}/access',
      'POST /products',
      'GET /products',
      'GET /products/{product_id}',
      'PUT /products/{product_id}',
      'PATCH /products/{product_id}',
      'DELETE /products/{product_id}',
      'POST /newsletters',
      'GET /newsletters',
      'GET /newsletters/{newsletter_id}',
      'PUT /newsletters/{newsletter_id}',
      'PATCH /newsletters/{newsletter_id}',
      'DELETE /newsletters/{newsletter_id}',
      'GET /health/live',
      'GET /health/ready',
      'GET /metrics',
    ]) {
      assert.ok(operations.includes(expected), `${expected} is missing`);
    }
  });

  it('documents the query parameters, the JSON:API body and the error statuses of a route', () => {
    const list = document.paths['/users'].get;
    const parameters = list.parameters.map((p: any) => `${p.in}:${p.name}`);
    for (const name of [
      'filter[email]',
      'filter[circulationNumber]',
      'page[number]',
      'page',
      'page[size]',
      'page[after]',
      'filter[newsletter]',
      'filter[status]',
      'filter[resource]',
      'filter[product]',
    ]) {
      assert.ok(parameters.includes(`query:${name}`), `${name} is not documented`);
    }
    const create = document.paths['/users'].post;
    assert.ok(create.requestBody.content['application/vnd.api+json'].schema);
    for (const status of ['201', '400', '401', '403', '406', '409', '413', '415', '422', '429', '500', '503']) {
      assert.ok(create.responses[status], `POST /users does not document ${status}`);
    }
    assert.deepEqual(create.security, [{ bearer: [] }, { basic: [] }]);
    assert.equal(document.paths['/health/ready'].get.security, undefined);
  });
});
