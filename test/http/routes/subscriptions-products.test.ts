/**
 * A user's subscriptions with the catalogue, over real HTTP on both stores: the status worked out
 * when read, the list's filters by status, resource and product, `include=product`, and the
 * product a subscription names — registered on first use, refused when inactive, outside the id
 * pattern, or (with strict references) unknown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;
const product = (id: string) => ({ product: { data: { type: 'products', id } } });

forEachStore((kind) => {
  let service: Service;
  let strict: Service;
  before(async () => {
    service = await startService(kind);
    strict = await startService(kind, {}, { strictReferences: true });
  });
  after(async () => {
    await service.close();
    await strict.close();
  });

  const now = Date.now();
  const inDays = (days: number) => new Date(now + days * 86_400_000).toISOString().slice(0, 19) + '+00:00';
  const subscribe = async (userId: string, attributes: Record<string, unknown>, productId?: string) => {
    const response = await service.client.post(
      `/users/${userId}/subscriptions`,
      subscriptionDocument(attributes, productId === undefined ? undefined : product(productId)),
    );
    assert.equal(response.status, 201, response.text);
    return response.body.data.id as string;
  };
  const listed = async (userId: string, query: string) => {
    const response = await service.client.get(`/users/${userId}/subscriptions?${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((s: any) => s.id);
  };

  describe('status', () => {
    it('reads scheduled, active, ended or expired, as of the moment of the request', async () => {
      const user = await createUser(service.client);
      const scheduled = await subscribe(user, { dateStarted: inDays(1), dateEnded: null });
      const active = await subscribe(user, { dateStarted: inDays(-1), dateEnded: inDays(1) });
      const ended = await subscribe(user, { dateStarted: inDays(-2), dateEnded: inDays(-1) });
      const expired = await subscribe(user, { dateStarted: inDays(-2), dateEnded: null });
      const expiring = await service.client.put(`/users/${user}/subscriptions/${expired}/expire`);
      assert.equal(expiring.body.data.attributes.status, 'expired');
      const statuses = Object.fromEntries(
        (await service.client.get(`/users/${user}/subscriptions`)).body.data.map((s: any) => [
          s.id,
          s.attributes.status,
        ]),
      );
      assert.deepEqual(statuses, {
        [scheduled]: 'scheduled',
        [active]: 'active',
        [ended]: 'ended',
        [expired]: 'expired',
      });
    });

    it('refuses status as an attribute to write, like any read-only one', async () => {
      const user = await createUser(service.client);
      const error = onlyError(
        await service.client.post(`/users/${user}/subscriptions`, subscriptionDocument({ status: 'active' })),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/status');
    });
  });

  describe('GET /users/{id}/subscriptions filters', () => {
    it('filters by status, one or several', async () => {
      const user = await createUser(service.client);
      const scheduled = await subscribe(user, { dateStarted: inDays(1), dateEnded: null });
      const active = await subscribe(user, { dateStarted: inDays(-1), dateEnded: null });
      const ended = await subscribe(user, { dateStarted: inDays(-2), dateEnded: inDays(-1) });
      assert.deepEqual(await listed(user, 'filter[status]=active'), [active]);
      assert.deepEqual(await listed(user, 'filter[status]=scheduled,ended'), [scheduled, ended]);
      assert.deepEqual(await listed(user, 'filter[status]=expired'), []);
    });

    it("filters by the resource given, by the subscription's own or its product's, and by product", async () => {
      const paper = uniqueId('paper');
      await service.client.post('/products', {
        data: { type: 'products', id: paper, attributes: { name: 'Paper', resource: 'print' } },
      });
      const user = await createUser(service.client);
      const online = await subscribe(user, { resource: 'online' });
      const both = await subscribe(user, { resource: 'print-online' });
      const byProduct = await subscribe(user, { resource: null }, paper);
      assert.deepEqual(await listed(user, 'filter[resource]=print'), [both, byProduct]);
      assert.deepEqual(await listed(user, 'filter[resource]=online'), [online, both]);
      assert.deepEqual(await listed(user, `filter[product]=${paper}`), [byProduct]);
      assert.deepEqual(await listed(user, `filter[product]=${paper}&filter[resource]=online`), []);
    });

    it('answers 400 naming the parameter for a status or resource it does not know', async () => {
      const user = await createUser(service.client);
      for (const [query, parameter] of [
        ['filter[status]=lapsed', 'filter[status]'],
        ['filter[status]=active,', 'filter[status]'],
        ['filter[resource]=radio', 'filter[resource]'],
        ['filter[product]=', 'filter[product]'],
        ['filter[license]=site', 'filter[license]'],
      ]) {
        const error = onlyError(await service.client.get(`/users/${user}/subscriptions?${query}`), 400);
        assert.equal(error.source.parameter, parameter, query);
      }
    });
  });

  describe('include=product', () => {
    it('puts the products of a list in included, each once, and of one subscription too', async () => {
      const [a, b] = [uniqueId('a'), uniqueId('b')];
      const user = await createUser(service.client);
      const first = await subscribe(user, {}, a);
      await subscribe(user, {}, a);
      await subscribe(user, {}, b);
      await subscribe(user, {});
      const list = await service.client.get(`/users/${user}/subscriptions?include=product`);
      assert.deepEqual(
        list.body.included.map((p: any) => [p.type, p.id, p.attributes.name]),
        [
          ['products', a, a],
          ['products', b, b],
        ],
      );
      const one = await service.client.get(`/users/${user}/subscriptions/${first}?include=product`);
      assert.deepEqual(
        one.body.included.map((p: any) => p.id),
        [a],
      );
      assert.deepEqual(one.body.data.relationships, product(a));
      assert.equal(one.headers.get('etag'), null, 'a compound document carries no ETag');
    });

    it('answers 400 for an include other than product', async () => {
      const user = await createUser(service.client);
      const error = onlyError(await service.client.get(`/users/${user}/subscriptions?include=user`), 400);
      assert.equal(error.source.parameter, 'include');
    });
  });

  describe('the product a subscription names', () => {
    it('is registered on first use, named as its id, with a product.created event', async () => {
      const id = uniqueId('first-use');
      const user = await createUser(service.client);
      await subscribe(user, {}, id);
      const read = await service.client.get(`/products/${id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual([read.body.data.attributes.name, read.body.data.meta.activeSubscriptions], [id, 0]);
      const events = await service.client.get('/events?filter[type]=product.created&page[size]=100');
      assert.ok(events.body.data.some((e: any) => e.attributes.resourceId === id && e.attributes.userId === null));
    });

    it('is refused when inactive, with 422 INACTIVE_REFERENCE at the relationship, on create and on update', async () => {
      const [closed, open] = [uniqueId('closed'), uniqueId('open')];
      await service.client.post('/products', {
        data: { type: 'products', id: closed, attributes: { name: 'Closed', active: false } },
      });
      const user = await createUser(service.client);
      const created = onlyError(
        await service.client.post(`/users/${user}/subscriptions`, subscriptionDocument({}, product(closed))),
        422,
      );
      assert.deepEqual(
        [created.code, created.source.pointer],
        ['INACTIVE_REFERENCE', '/data/relationships/product/data/id'],
      );
      const id = await subscribe(user, {}, open);
      const moved = onlyError(
        await service.client.patch(`/users/${user}/subscriptions/${id}`, {
          data: { type: 'subscriptions', id, relationships: product(closed) },
        }),
        422,
      );
      assert.equal(moved.code, 'INACTIVE_REFERENCE');
      assert.deepEqual(await listed(user, `filter[product]=${closed}`), []);
    });

    it('is refused with 422 at the relationship when its id is outside the pattern', async () => {
      const user = await createUser(service.client);
      const error = onlyError(
        await service.client.post(`/users/${user}/subscriptions`, subscriptionDocument({}, product('digital monthly'))),
        422,
      );
      assert.deepEqual(
        [error.code, error.source.pointer],
        ['INVALID_ATTRIBUTE', '/data/relationships/product/data/id'],
      );
    });

    it('is refused when unknown with STRICT_REFERENCES, with 422 UNKNOWN_REFERENCE and nothing stored', async () => {
      const id = uniqueId('unknown');
      const user = await createUser(strict.client);
      const error = onlyError(
        await strict.client.post(`/users/${user}/subscriptions`, subscriptionDocument({}, product(id))),
        422,
      );
      assert.deepEqual(
        [error.code, error.source.pointer, error.detail],
        ['UNKNOWN_REFERENCE', '/data/relationships/product/data/id', `there is no product ${id}`],
      );
      assert.equal((await strict.client.get(`/products/${id}`)).status, 404);
      assert.deepEqual((await strict.client.get(`/users/${user}/subscriptions`)).body.data, []);
      await strict.client.post('/products', { data: { type: 'products', id, attributes: { name: 'Now known' } } });
      const accepted = await strict.client.post(`/users/${user}/subscriptions`, subscriptionDocument({}, product(id)));
      assert.equal(accepted.status, 201, accepted.text);
    });

    it('with STRICT_REFERENCES, refuses unknown newsletters each at its index in add', async () => {
      const known = uniqueId('known');
      await strict.client.post('/newsletters', { data: { type: 'newsletters', id: known, attributes: { name: 'K' } } });
      const response = await strict.client.post('/users', {
        data: {
          type: 'users',
          attributes: {
            email: `${uniqueId('strict')}@example.com`,
            familyName: 'Strict',
            newsletters: { add: [known, uniqueId('x'), uniqueId('y')] },
          },
        },
      });
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(
        response.body.errors.map((e: any) => [e.code, e.source.pointer]),
        [
          ['UNKNOWN_REFERENCE', '/data/attributes/newsletters/add/1'],
          ['UNKNOWN_REFERENCE', '/data/attributes/newsletters/add/2'],
        ],
      );
    });
  });
});
