/**
 * Hostile input: query parameters. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSubscription, createUser, userDocument } from '../../../support/fixtures.js';
import { type Response } from '../../../support/service.js';
import { type Hostile } from '../harness.js';

export function queryParameters(hostile: Hostile): void {
  const { refused, isPolluted } = hostile;

  describe('query parameters', () => {
    function assertBadParameter(response: Response, parameter: string): void {
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.errors.length, 1, response.text);
      assert.equal(response.body.errors[0].source?.parameter, parameter, response.text);
    }

    for (const parameter of [
      'foo',
      'filter[name]',
      'filter[password]',
      'filter[id]',
      'filter',
      'sort',
      'include',
      'fields[users]',
      'page[offset]',
    ]) {
      it(`refuses the unsupported parameter ${parameter} on GET /users with 400 naming it`, async () => {
        assertBadParameter(await hostile.service.client.get(`/users?${parameter}=1`), parameter);
      });
    }

    const otherRoutes: [string, () => Promise<string>][] = [
      ['GET /users/{id}', async () => `/users/${hostile.userId}`],
      ['GET /users/{id}/subscriptions', async () => `/users/${hostile.userId}/subscriptions`],
      [
        'GET /users/{id}/subscriptions/{id}',
        async () => `/users/${hostile.userId}/subscriptions/${hostile.subscriptionId}`,
      ],
    ];
    for (const [route, path] of otherRoutes) {
      it(`refuses the unsupported parameter foo on ${route} with 400 naming it`, async () => {
        assertBadParameter(await hostile.service.client.get(`${await path()}?foo=1`), 'foo');
      });
    }

    it('refuses the unsupported parameter foo on POST /users with 400, creating nothing', async () => {
      const errors = await refused(400, () => hostile.service.client.post('/users?foo=1', userDocument()));
      assert.equal(errors[0].source?.parameter, 'foo');
    });

    it('refuses the unsupported parameter foo on PUT /users/{id} with 400, changing nothing', async () => {
      const errors = await refused(400, () =>
        hostile.service.client.put(`/users/${hostile.userId}?foo=1`, {
          data: { type: 'users', id: hostile.userId, attributes: { givenName: 'Foo' } },
        }),
      );
      assert.equal(errors[0].source?.parameter, 'foo');
    });

    it('refuses the unsupported parameter foo on DELETE of a subscription with 400, deleting nothing', async () => {
      const id = await createSubscription(hostile.service.client, hostile.userId);
      const errors = await refused(400, () =>
        hostile.service.client.delete(`/users/${hostile.userId}/subscriptions/${id}?foo=1`),
      );
      assert.equal(errors[0].source?.parameter, 'foo');
    });

    it('refuses a __proto__ query parameter with 400 and pollutes nothing', async () => {
      assertBadParameter(await hostile.service.client.get('/users?__proto__[polluted]=1'), '__proto__[polluted]');
      assert.equal(isPolluted(), false);
    });

    const repeated: [string, string][] = [
      ['page[number]', 'page[number]=1&page[number]=2'],
      ['page[number]', 'page[number]=1&page[number]=1'],
      ['page[size]', 'page[size]=10&page[size]=20'],
      ['filter[email]', 'filter[email]=a@example.com&filter[email]=b@example.com'],
      ['filter[circulationNumber]', 'filter[circulationNumber]=C-1&filter[circulationNumber]=C-2'],
    ];
    for (const [parameter, query] of repeated) {
      it(`refuses a repeated ${parameter} (${query}) with 400 naming it`, async () => {
        assertBadParameter(await hostile.service.client.get(`/users?${query}`), parameter);
      });
    }

    it('refuses page and page[number] that disagree with 400', async () => {
      const response = await hostile.service.client.get('/users?page=2&page[number]=3');
      assert.equal(response.status, 400, response.text);
      assert.ok(['page', 'page[number]'].includes(response.body.errors[0].source?.parameter));
    });

    const badPages: [string, string][] = [
      ['page[number]', '0'],
      ['page[number]', '-1'],
      ['page[number]', 'abc'],
      ['page[number]', ''],
      ['page[number]', '1.5'],
      ['page[number]', '99999999999999999999'],
      ['page', '0'],
      ['page', 'abc'],
      ['page[size]', '101'],
      ['page[size]', '0'],
      ['page[size]', '-5'],
      ['page[size]', 'abc'],
    ];
    for (const [parameter, value] of badPages) {
      it(`refuses ${parameter}=${value} with 400 naming ${parameter}`, async () => {
        assertBadParameter(
          await hostile.service.client.get(`/users?${parameter}=${encodeURIComponent(value)}`),
          parameter,
        );
      });
    }

    it('accepts only plain decimal digits as a page number, not 1e3, 0x10 or +1', async () => {
      for (const value of ['1e3', '0x10', '+1']) {
        assertBadParameter(
          await hostile.service.client.get(`/users?page[number]=${encodeURIComponent(value)}`),
          'page[number]',
        );
      }
    });

    const undecodable: [string, string][] = [
      ['filter[email]=%FF', 'filter[email]'],
      ['filter[circulationNumber]=C-%E0%A4%A', 'filter[circulationNumber]'],
      ['page[size]=1&filter[q]=%C3%28', 'filter[q]'],
    ];
    for (const [query, parameter] of undecodable) {
      it(`refuses a query parameter that does not decode (${query}) with 400 naming it`, async () => {
        assertBadParameter(await hostile.service.client.get(`/users?${query}`), parameter);
      });
    }

    it('takes an escaped percent sign in a filter as the character it encodes', async () => {
      const number = `100%-${process.pid}`;
      const id = await createUser(hostile.service.client, { circulationNumber: number });
      const response = await hostile.service.client.get(
        `/users?filter[circulationNumber]=${encodeURIComponent(number)}`,
      );
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.map((user: { id: string }) => user.id),
        [id],
      );
    });

    it('refuses an empty filter[email] with 400 naming it', async () => {
      assertBadParameter(await hostile.service.client.get('/users?filter[email]='), 'filter[email]');
    });

    it('refuses a filter[email] longer than an address can be with 400 naming it', async () => {
      assertBadParameter(await hostile.service.client.get(`/users?filter[email]=${'a'.repeat(300)}`), 'filter[email]');
    });
  });
}
