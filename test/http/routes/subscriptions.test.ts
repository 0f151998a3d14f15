import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const product = (id: string) => ({ product: { data: { type: 'products', id } } });

  describe('POST /users/{id}/subscriptions', () => {
    it('creates a subscription and answers 201 with Location and the attributes sent', async () => {
      const userId = await createUser(service.client);
      const document = subscriptionDocument({ externalIdentifier: 'ext-1', license: 'site', resource: 'print-online' });
      const response = await service.client.post(`/users/${userId}/subscriptions`, document);
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.equal(data.type, 'subscriptions');
      assert.match(data.id, /^[1-9][0-9]*$/);
      const self = `${service.baseUrl}/users/${userId}/subscriptions/${data.id}`;
      assert.equal(response.headers.get('location'), self);
      assert.equal(data.links.self, self);
      assert.deepEqual(data.attributes, {
        ...document.data.attributes,
        expired: false,
        deliveryDays: null,
        // A site licence's terms, none sent (site-licences.test.ts).
        ipRanges: [],
        emailDomains: [],
        seats: null,
        status: 'ended',
      });
      assert.deepEqual(data.relationships, { product: { data: null } });
    });

    it('stores and returns the product relationship without license and resource', async () => {
      const userId = await createUser(service.client);
      const response = await service.client.post(`/users/${userId}/subscriptions`, {
        data: {
          type: 'subscriptions',
          attributes: {
            dateStarted: '2025-03-01T00:00:00+00:00',
            dateEnded: '2025-04-01T00:00:00+00:00',
            externalIdentifier: 'abc',
            trial: true,
          },
          relationships: product('premium-annual'),
        },
      });
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.deepEqual(data.relationships, product('premium-annual'));
      assert.equal(data.attributes.license, null);
      assert.equal(data.attributes.resource, null);
      const read = await service.client.get(`/users/${userId}/subscriptions/${data.id}`);
      assert.deepEqual(read.body.data.relationships, product('premium-annual'));
    });

    it('writes dates back in UTC, to the second', async () => {
      const userId = await createUser(service.client);
      const response = await service.client.post(
        `/users/${userId}/subscriptions`,
        subscriptionDocument({ dateStarted: '2025-06-01T12:30:45.900-04:00', dateEnded: '2025-12-31T23:59:59Z' }),
      );
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.attributes.dateStarted, '2025-06-01T16:30:45+00:00');
      assert.equal(response.body.data.attributes.dateEnded, '2025-12-31T23:59:59+00:00');
    });

    it('refuses dates without a UTC offset or not on the calendar', async () => {
      const userId = await createUser(service.client);
      for (const dateStarted of ['2025-01-01', '2025-01-01T00:00:00', '2025-02-30T00:00:00Z', 'yesterday']) {
        const error = onlyError(
          await service.client.post(`/users/${userId}/subscriptions`, subscriptionDocument({ dateStarted })),
          422,
        );
        assert.equal(error.source.pointer, '/data/attributes/dateStarted');
        assert.match(error.detail, /ISO-8601/);
      }
    });

    it('refuses a dateEnded its offset carries past the year 9999 in UTC, as it could not be written back', async () => {
      const userId = await createUser(service.client);
      const error = onlyError(
        await service.client.post(
          `/users/${userId}/subscriptions`,
          subscriptionDocument({ dateEnded: '9999-12-31T23:00:00-05:00' }),
        ),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/dateEnded');
      assert.match(error.detail, /years 0000 to 9999/);
    });

    it('refuses license and resource outside their enumerations', async () => {
      const userId = await createUser(service.client);
      const response = await service.client.post(
        `/users/${userId}/subscriptions`,
        subscriptionDocument({ license: 'corporate', resource: 'radio' }),
      );
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.errors.map((e: any) => [e.source.pointer, e.detail]).sort(), [
        ['/data/attributes/license', 'must be one of: individual, free, site'],
        ['/data/attributes/resource', 'must be one of: online, print, print-online'],
      ]);
    });

    it('refuses an externalIdentifier that is not a string and a trial that is not a boolean', async () => {
      const userId = await createUser(service.client);
      const response = await service.client.post(
        `/users/${userId}/subscriptions`,
        subscriptionDocument({ externalIdentifier: 42, trial: 'yes' }),
      );
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.errors.map((e: any) => [e.source.pointer, e.detail]).sort(), [
        ['/data/attributes/externalIdentifier', 'must be a string'],
        ['/data/attributes/trial', 'must be true or false'],
      ]);
    });

    it('refuses dateEnded before dateStarted', async () => {
      const userId = await createUser(service.client);
      const error = onlyError(
        await service.client.post(
          `/users/${userId}/subscriptions`,
          subscriptionDocument({ dateStarted: '2025-05-01T00:00:00Z', dateEnded: '2025-04-01T00:00:00Z' }),
        ),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/dateEnded');
    });

    it('reports dates out of order with every other problem, in one answer', async () => {
      const userId = await createUser(service.client);
      const response = await service.client.post(
        `/users/${userId}/subscriptions`,
        subscriptionDocument({
          license: 'lifetime',
          dateStarted: '2026-01-01T00:00:00Z',
          dateEnded: '2025-01-01T00:00:00Z',
        }),
      );
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(response.body.errors.map((e: any) => e.source.pointer).sort(), [
        '/data/attributes/dateEnded',
        '/data/attributes/license',
      ]);
    });

    it('refuses a missing dateStarted', async () => {
      const userId = await createUser(service.client);
      const error = onlyError(
        await service.client.post(`/users/${userId}/subscriptions`, {
          data: { type: 'subscriptions', attributes: { trial: false } },
        }),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/dateStarted');
    });

    it('refuses a product relationship of another type', async () => {
      const userId = await createUser(service.client);
      const error = onlyError(
        await service.client.post(
          `/users/${userId}/subscriptions`,
          subscriptionDocument({}, { product: { data: { type: 'users', id: '1' } } }),
        ),
        422,
      );
      assert.equal(error.source.pointer, '/data/relationships/product/data/type');
    });

    it('answers 404 for an unknown user', async () => {
      onlyError(await service.client.post('/users/4444444/subscriptions', subscriptionDocument()), 404);
    });

    it('refuses the users type with 409', async () => {
      const userId = await createUser(service.client);
      const document = subscriptionDocument();
      onlyError(
        await service.client.post(`/users/${userId}/subscriptions`, { data: { ...document.data, type: 'users' } }),
        409,
      );
    });
  });

  describe('GET /users/{id}/subscriptions', () => {
    it("lists only that user's subscriptions, by id", async () => {
      const userId = await createUser(service.client);
      const other = await createUser(service.client);
      const first = await createSubscription(service.client, userId);
      await createSubscription(service.client, other);
      const second = await createSubscription(service.client, userId, { resource: 'print' });
      const response = await service.client.get(`/users/${userId}/subscriptions`);
      assert.equal(response.status, 200);
      assert.deepEqual(
        response.body.data.map((s: any) => s.id),
        [first, second],
      );
    });

    it('answers an empty list for a user without subscriptions and 404 for no user', async () => {
      const userId = await createUser(service.client);
      assert.deepEqual((await service.client.get(`/users/${userId}/subscriptions`)).body.data, []);
      onlyError(await service.client.get('/users/5555555/subscriptions'), 404);
    });

    it('pages by page[size] and the page[after] of links.next, in either order, however many there are', async () => {
      const userId = await createUser(service.client);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push(await createSubscription(service.client, userId));
      const walk = async (first: string) => {
        const seen: string[] = [];
        let url: string | undefined = first;
        while (url) {
          const response = await service.client.get(url.replace(service.baseUrl, ''));
          assert.equal(response.status, 200, response.text);
          assert.ok(response.body.data.length <= 2);
          seen.push(...response.body.data.map((s: any) => s.id));
          url = response.body.links.next;
        }
        return seen;
      };
      assert.deepEqual(await walk(`/users/${userId}/subscriptions?page[size]=2`), ids);
      assert.deepEqual(await walk(`/users/${userId}/subscriptions?page[size]=2&sort=-id`), [...ids].reverse());
      const first = await service.client.get(`/users/${userId}/subscriptions?page[size]=2`);
      assert.equal(
        first.body.links.next,
        `${service.baseUrl}/users/${userId}/subscriptions?page%5Bsize%5D=2&page%5Bafter%5D=${ids[1]}`,
      );
    });

    it('answers at most 100 subscriptions a page', async () => {
      const error = onlyError(await service.client.get('/users/1/subscriptions?page[size]=101'), 400);
      assert.deepEqual(error.source, { parameter: 'page[size]' });
    });
  });

  describe('include=subscriptions', () => {
    it("includes a user's first 20 subscriptions, and says where the rest are", async () => {
      const userId = await createUser(service.client);
      const ids: string[] = [];
      for (let i = 0; i < 22; i += 1) ids.push(await createSubscription(service.client, userId));
      const few = await createUser(service.client);
      const theirs = await createSubscription(service.client, few);
      for (const path of [
        `/users/${userId}?include=subscriptions`,
        `/users?include=subscriptions&page[after]=${Number(userId) - 1}&page[size]=2`,
      ]) {
        const response = await service.client.get(path);
        assert.equal(response.status, 200, response.text);
        const [many, one] = ([] as any[]).concat(response.body.data);
        assert.deepEqual(
          many.relationships.subscriptions.data.map((s: any) => s.id),
          ids.slice(0, 20),
        );
        assert.deepEqual(many.relationships.subscriptions.meta, { truncated: true });
        assert.equal(
          many.relationships.subscriptions.links.related,
          `${service.baseUrl}/users/${userId}/subscriptions`,
        );
        if (one) {
          assert.deepEqual(one.relationships.subscriptions, { data: [{ type: 'subscriptions', id: theirs }] });
        }
        assert.equal(response.body.included.length, one ? 21 : 20);
      }
    });
  });

  describe('GET /users/{id}/subscriptions/{id}', () => {
    it('returns the subscription as created', async () => {
      const userId = await createUser(service.client);
      const created = await service.client.post(`/users/${userId}/subscriptions`, subscriptionDocument());
      const response = await service.client.get(`/users/${userId}/subscriptions/${created.body.data.id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, created.body);
    });

    it('is reachable only under its own user', async () => {
      const owner = await createUser(service.client);
      const stranger = await createUser(service.client);
      const id = await createSubscription(service.client, owner);
      onlyError(await service.client.get(`/users/${stranger}/subscriptions/${id}`), 404);
      onlyError(await service.client.delete(`/users/${stranger}/subscriptions/${id}`), 404);
      assert.equal((await service.client.get(`/users/${owner}/subscriptions/${id}`)).status, 200);
    });
  });

  describe('PUT /users/{id}/subscriptions/{id}', () => {
    it('changes only the attributes sent and answers 200 with Location and the full subscription', async () => {
      const userId = await createUser(service.client);
      const created = await service.client.post(`/users/${userId}/subscriptions`, subscriptionDocument());
      const id = created.body.data.id;
      const response = await service.client.put(`/users/${userId}/subscriptions/${id}`, {
        data: { type: 'subscriptions', id, attributes: { trial: true, externalIdentifier: 'x-9' } },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('location'), created.body.data.links.self);
      assert.deepEqual(response.body.data.attributes, {
        ...created.body.data.attributes,
        trial: true,
        externalIdentifier: 'x-9',
      });
      assert.deepEqual((await service.client.get(`/users/${userId}/subscriptions/${id}`)).body, response.body);
    });

    it('sets and removes the product relationship', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const path = `/users/${userId}/subscriptions/${id}`;
      const set = await service.client.put(path, {
        data: { type: 'subscriptions', id, relationships: product('p-2') },
      });
      assert.deepEqual(set.body.data.relationships, product('p-2'));
      const cleared = await service.client.put(path, {
        data: { type: 'subscriptions', id, relationships: { product: { data: null } } },
      });
      assert.deepEqual(cleared.body.data.relationships, { product: { data: null } });
    });

    it('gives the same validation errors as create and changes nothing', async () => {
      const userId = await createUser(service.client);
      const created = await service.client.post(`/users/${userId}/subscriptions`, subscriptionDocument());
      const id = created.body.data.id;
      const path = `/users/${userId}/subscriptions/${id}`;
      const response = await service.client.put(path, {
        data: { type: 'subscriptions', id, attributes: { license: 'nope', dateStarted: 'soon', trial: true } },
      });
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.errors.map((e: any) => e.source.pointer).sort(), [
        '/data/attributes/dateStarted',
        '/data/attributes/license',
      ]);
      assert.deepEqual((await service.client.get(path)).body, created.body);
    });

    it('refuses a dateEnded before the stored dateStarted', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId, { dateStarted: '2025-01-01T00:00:00Z' });
      const error = onlyError(
        await service.client.put(`/users/${userId}/subscriptions/${id}`, {
          data: { type: 'subscriptions', id, attributes: { dateEnded: '2024-01-01T00:00:00Z' } },
        }),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/dateEnded');
    });

    it('refuses an id that differs from the address with 409', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      onlyError(
        await service.client.put(`/users/${userId}/subscriptions/${id}`, {
          data: { type: 'subscriptions', id: '999999', attributes: { trial: true } },
        }),
        409,
      );
    });

    it('is accepted as PATCH too', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const response = await service.client.patch(`/users/${userId}/subscriptions/${id}`, {
        data: { type: 'subscriptions', id, attributes: { resource: 'print' } },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.attributes.resource, 'print');
    });
  });

  describe('an update of a subscription that sends nothing to change', () => {
    it('answers the subscription as it stands: the same ETag, no event', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const path = `/users/${userId}/subscriptions/${id}`;
      const before = await service.client.get(path);
      const events = async () => (await service.client.get(`/events?filter[user]=${userId}`)).body.data.length;
      const count = await events();
      for (const send of [service.client.put.bind(service.client), service.client.patch.bind(service.client)]) {
        const response = await send(path, { data: { type: 'subscriptions', id, attributes: {} } });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.headers.get('etag'), before.headers.get('etag'));
        assert.equal(response.headers.get('location'), before.body.data.links.self);
        assert.deepEqual(response.body.data, before.body.data);
      }
      assert.equal(await events(), count);
    });

    it('refuses with 412 when If-Match names another version, and 404 for no such subscription', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const document = { data: { type: 'subscriptions', id } };
      const stale = await service.client.patch(`/users/${userId}/subscriptions/${id}`, document, {
        headers: { 'if-match': '"999"' },
      });
      assert.equal(onlyError(stale, 412).code, 'PRECONDITION_FAILED');
      const missing = { data: { type: 'subscriptions', id: '999999999' } };
      onlyError(await service.client.patch(`/users/${userId}/subscriptions/999999999`, missing), 404);
    });
  });

  describe('DELETE /users/{id}/subscriptions/{id}', () => {
    it('deletes it and answers 204 with no body', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const response = await service.client.delete(`/users/${userId}/subscriptions/${id}`);
      assert.equal(response.status, 204);
      assert.equal(response.text, '');
      onlyError(await service.client.get(`/users/${userId}/subscriptions/${id}`), 404);
      onlyError(await service.client.delete(`/users/${userId}/subscriptions/${id}`), 404);
    });
  });

  describe('PUT /users/{id}/subscriptions/{id}/expire', () => {
    it('sets expired and dateEnded to the current time, and answers 200 with the subscription', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId, { dateEnded: '2099-01-01T00:00:00Z' });
      const before = Math.floor(Date.now() / 1000);
      const response = await service.client.put(`/users/${userId}/subscriptions/${id}/expire`);
      const after = Math.ceil(Date.now() / 1000);
      assert.equal(response.status, 200, response.text);
      const { attributes } = response.body.data;
      assert.equal(attributes.expired, true);
      const ended = Date.parse(attributes.dateEnded) / 1000;
      assert.ok(ended >= before && ended <= after, `dateEnded ${attributes.dateEnded} is not now`);
      assert.match(attributes.dateEnded, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
      assert.deepEqual((await service.client.get(`/users/${userId}/subscriptions/${id}`)).body, response.body);
    });

    it('leaves an expired subscription as it is when expired again', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const first = await service.client.put(`/users/${userId}/subscriptions/${id}/expire`);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const second = await service.client.put(`/users/${userId}/subscriptions/${id}/expire`);
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
    });

    it('expires a subscription that had not started yet', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId, {
        dateStarted: '2098-01-01T00:00:00Z',
        dateEnded: '2099-01-01T00:00:00Z',
      });
      const response = await service.client.put(`/users/${userId}/subscriptions/${id}/expire`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.attributes.expired, true);
    });

    it("answers 404 for an unknown subscription or another user's", async () => {
      const owner = await createUser(service.client);
      const stranger = await createUser(service.client);
      const id = await createSubscription(service.client, owner);
      onlyError(await service.client.put(`/users/${stranger}/subscriptions/${id}/expire`), 404);
      onlyError(await service.client.put(`/users/${owner}/subscriptions/8888888/expire`), 404);
    });
  });
});
