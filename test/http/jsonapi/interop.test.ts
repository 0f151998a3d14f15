/**
 * JSON:API beyond the interface's own endpoints: sparse fieldsets, `include=subscriptions`,
 * `sort`, 400 for what is not supported, and an off-the-shelf JSON:API client (kitsu) driving
 * create, list, filter, update and delete exactly as an integrator would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Kitsu from 'kitsu';
import { createSubscription, createUser, onlyError, uniqueEmail } from '../../support/fixtures.js';
import { startService, TEST_ADMIN_KEY, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  let userId: string;
  let subscriptionIds: string[];
  before(async () => {
    service = await startService(kind);
    userId = await createUser(service.client, { givenName: 'Ada', circulationNumber: `INTEROP-${kind}` });
    subscriptionIds = [
      await createSubscription(service.client, userId),
      await createSubscription(service.client, userId),
    ];
  });
  after(() => service.close());

  describe('sparse fieldsets', () => {
    it('return only the user fields asked for', async () => {
      const response = await service.client.get(`/users/${userId}?fields[users]=email,givenName`);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body.data.attributes).sort(), ['email', 'givenName']);
    });

    it('return only the subscription fields asked for, on one and on the list', async () => {
      const one = await service.client.get(
        `/users/${userId}/subscriptions/${subscriptionIds[0]}?fields[subscriptions]=trial`,
      );
      assert.deepEqual(one.body.data.attributes, { trial: false });
      assert.deepEqual(one.body.data.relationships, {});
      const list = await service.client.get(`/users/${userId}/subscriptions?fields[subscriptions]=expired,product`);
      for (const s of list.body.data) {
        assert.deepEqual(Object.keys(s.attributes), ['expired']);
        assert.ok(s.relationships.product);
      }
    });

    it('refuse a field the type does not have with 400', async () => {
      const error = onlyError(await service.client.get(`/users/${userId}?fields[users]=email,shoeSize`), 400);
      assert.deepEqual(error.source, { parameter: 'fields[users]' });
    });

    it('refuse a fieldset for a type that is not there with 400', async () => {
      onlyError(await service.client.get(`/users/${userId}?fields[products]=name`), 400);
    });
  });

  describe('include=subscriptions', () => {
    it("adds the user's subscriptions to included, with the linkage in relationships", async () => {
      const response = await service.client.get(`/users/${userId}?include=subscriptions`);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body.data.relationships.subscriptions.data,
        subscriptionIds.map((id) => ({ type: 'subscriptions', id })),
      );
      assert.deepEqual(
        response.body.included.map((s: any) => [s.type, s.id]),
        subscriptionIds.map((id) => ['subscriptions', id]),
      );
    });

    it('works on the list, and sparse fieldsets apply to the included resources', async () => {
      const response = await service.client.get(
        `/users?filter[circulationNumber]=INTEROP-${kind}&include=subscriptions&fields[subscriptions]=license`,
      );
      assert.equal(response.body.data.length, 1);
      assert.equal(response.body.included.length, 2);
      for (const s of response.body.included) assert.deepEqual(Object.keys(s.attributes), ['license']);
      assert.match(response.body.links.first, /include=subscriptions/);
    });

    it('refuses any other include with 400', async () => {
      const error = onlyError(await service.client.get(`/users/${userId}?include=products`), 400);
      assert.deepEqual(error.source, { parameter: 'include' });
    });
  });

  describe('sort', () => {
    it('orders users by id ascending or, with -id, descending, paging by links.next both ways', async () => {
      for (let i = 0; i < 5; i += 1) await createUser(service.client);
      const ascending = await service.client.get('/users?sort=id&page[size]=3');
      const descending = await service.client.get('/users?sort=-id&page[size]=3');
      const ids = (r: any) => r.body.data.map((u: any) => Number(u.id));
      assert.deepEqual(
        ids(ascending),
        [...ids(ascending)].sort((a, b) => a - b),
      );
      assert.deepEqual(
        ids(descending),
        [...ids(descending)].sort((a, b) => b - a),
      );
      const next = await service.client.get(descending.body.links.next.slice(service.baseUrl.length));
      assert.ok(Math.max(...ids(next)) < Math.min(...ids(descending)), 'the next page of -id is not further down');
    });

    it("orders a user's subscriptions with -id", async () => {
      const response = await service.client.get(`/users/${userId}/subscriptions?sort=-id`);
      assert.deepEqual(
        response.body.data.map((s: any) => s.id),
        [...subscriptionIds].reverse(),
      );
    });

    it('refuses any other sort with 400', async () => {
      const error = onlyError(await service.client.get('/users?sort=email'), 400);
      assert.deepEqual(error.source, { parameter: 'sort' });
    });
  });

  describe('kitsu, an off-the-shelf JSON:API client', () => {
    it('creates, lists, filters, updates and deletes users', async () => {
      const api = new Kitsu({
        baseURL: service.baseUrl,
        headers: { Authorization: `Bearer ${TEST_ADMIN_KEY}` },
        pluralize: false,
        camelCaseTypes: false,
        resourceCase: 'none',
      });
      const email = uniqueEmail('kitsu.example');
      const created = await api.post('users', { email, familyName: 'Client', givenName: 'Kit' });
      const id = created.data.id as string;
      assert.match(id, /^\d+$/);

      const listed = await api.get('users', { params: { filter: { email: 'kitsu.example' } } });
      assert.deepEqual(
        listed.data.map((u: any) => u.email),
        [email],
      );

      const patched = await api.patch('users', { id, jobTitle: 'Tester' });
      assert.equal(patched.data.jobTitle, 'Tester');
      const read = await api.get(`users/${id}`);
      assert.equal(read.data.jobTitle, 'Tester');
      assert.equal(read.data.givenName, 'Kit');

      await api.delete('users', id);
      await assert.rejects(api.get(`users/${id}`), (error: any) => error.response?.status === 404);
    });
  });
});
