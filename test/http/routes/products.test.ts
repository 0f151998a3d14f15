/**
 * /products over real HTTP on both stores: the catalogue's records as admins make and change
 * them and every credential reads them; ids the client chooses or the service draws; a product
 * subscriptions name cannot be deleted. (Newsletters share these routes: see newsletters.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, issueKey, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

let counter = 0;
const uniqueId = (prefix = 'product') => `${prefix}-${process.pid}-${++counter}`;

export function productDocument(attributes: Record<string, unknown> = {}, id?: string) {
  return {
    data: { type: 'products', ...(id === undefined ? {} : { id }), attributes: { name: 'Digital', ...attributes } },
  };
}

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const now = new Date();
  const inDays = (days: number) => new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 19) + 'Z';
  const subscribe = async (userId: string, productId: string, attributes: Record<string, unknown> = {}) => {
    const response = await service.client.post(
      `/users/${userId}/subscriptions`,
      subscriptionDocument(attributes, { product: { data: { type: 'products', id: productId } } }),
    );
    assert.equal(response.status, 201, response.text);
    return response.body.data.id as string;
  };

  describe('POST /products', () => {
    it('creates a product under the id the client chose: 201 with Location, ETag and every attribute', async () => {
      const id = uniqueId();
      const response = await service.client.post(
        '/products',
        productDocument({ description: 'Everything online', resource: 'online', license: 'individual' }, id),
      );
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.equal(data.id, id);
      assert.equal(response.headers.get('location'), `${service.baseUrl}/products/${id}`);
      assert.equal(response.headers.get('etag'), '"1"');
      const { createdAt, updatedAt, ...attributes } = data.attributes;
      assert.deepEqual(attributes, {
        name: 'Digital',
        description: 'Everything online',
        active: true,
        resource: 'online',
        license: 'individual',
        deliveryDays: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      });
      assert.match(createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
      assert.equal(updatedAt, createdAt);
    });

    it('gives a product created without an id a random one of its own', async () => {
      const response = await service.client.post('/products', productDocument());
      assert.equal(response.status, 201, response.text);
      assert.match(response.body.data.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('keeps ids from another system as they are, digits included', async () => {
      for (const id of ['123', `daily.${counter}`, `A_b-${process.pid}`]) {
        const response = await service.client.post('/products', productDocument({}, id));
        assert.equal(response.status, 201, response.text);
        assert.equal((await service.client.get(`/products/${id}`)).body.data.id, id);
      }
    });

    it('refuses an id with characters outside [A-Za-z0-9._-] or longer than 64, at /data/id', async () => {
      for (const id of ['with space', 'slash/ed', 'ünï', '', 'x'.repeat(65)]) {
        const response = await service.client.post('/products', productDocument({}, id));
        assert.equal(response.status, 422, `${id}: ${response.text}`);
        assert.ok(
          response.body.errors.every((e: any) => e.source.pointer === '/data/id' && e.code === 'INVALID_ATTRIBUTE'),
          response.text,
        );
      }
    });

    it('refuses . and .. at /data/id: every URL parser drops them, so no link could reach the product', async () => {
      for (const id of ['.', '..']) {
        const error = onlyError(await service.client.post('/products', productDocument({}, id)), 422);
        assert.deepEqual([error.code, error.source.pointer], ['INVALID_ATTRIBUTE', '/data/id']);
      }
    });

    it('answers 409 ID_TAKEN at /data/id for an id another product has, and keeps the first', async () => {
      const id = uniqueId();
      await service.client.post('/products', productDocument({ name: 'First' }, id));
      const error = onlyError(await service.client.post('/products', productDocument({ name: 'Second' }, id)), 409);
      assert.deepEqual([error.code, error.source.pointer], ['ID_TAKEN', '/data/id']);
      assert.equal((await service.client.get(`/products/${id}`)).body.data.attributes.name, 'First');
    });

    it('answers one 201 and forty-nine 409s to fifty creates of the same id at once', async () => {
      const id = uniqueId('race');
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => service.client.post('/products', productDocument({}, id))),
      );
      const statuses = responses.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, ...Array(49).fill(409)]);
      assert.ok(responses.filter((r) => r.status === 409).every((r) => r.body.errors[0].code === 'ID_TAKEN'));
    });

    it('refuses a blank name, an unknown resource and a missing name, one error each', async () => {
      const response = await service.client.post('/products', productDocument({ name: ' ', resource: 'radio' }));
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.errors.map((e: any) => [e.source.pointer, e.detail]).sort(), [
        ['/data/attributes/name', "can't be blank"],
        ['/data/attributes/resource', 'must be one of: online, print, print-online'],
      ]);
      const missing = onlyError(
        await service.client.post('/products', { data: { type: 'products', attributes: {} } }),
        422,
      );
      assert.equal(missing.source.pointer, '/data/attributes/name');
    });

    it('lets only an admin change the catalogue, and any credential read it', async () => {
      const writer = service.client.as((await issueKey(service.client, ['write'])).secret);
      const reader = service.client.as((await issueKey(service.client, ['read'])).secret);
      const id = uniqueId();
      assert.equal((await writer.post('/products', productDocument({}, id))).status, 403);
      await service.client.post('/products', productDocument({}, id));
      assert.equal((await reader.get(`/products/${id}`)).status, 200);
      assert.equal((await reader.get('/products')).status, 200);
      assert.equal(
        (await writer.patch(`/products/${id}`, { data: { type: 'products', id, attributes: {} } })).status,
        403,
      );
      assert.equal((await writer.delete(`/products/${id}`)).status, 403);
    });
  });

  describe('GET /products', () => {
    it('pages products in id order, links.next carrying page[after] and the other parameters', async () => {
      const prefix = uniqueId('page');
      for (const suffix of ['c', 'a', 'b']) {
        await service.client.post('/products', productDocument({}, `${prefix}-${suffix}`));
      }
      const first = await service.client.get(`/products?page[size]=2&page[after]=${prefix}`);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(
        first.body.data.map((p: any) => p.id),
        [`${prefix}-a`, `${prefix}-b`],
      );
      assert.equal(first.body.links.next, `${service.baseUrl}/products?page%5Bsize%5D=2&page%5Bafter%5D=${prefix}-b`);
      const second = await service.client.get(first.body.links.next.slice(service.baseUrl.length));
      assert.equal(second.body.data[0].id, `${prefix}-c`);
    });

    it('lists only inactive products with filter[active]=false', async () => {
      const id = uniqueId('retired');
      await service.client.post('/products', productDocument({ active: false }, id));
      const inactive = (await service.client.get('/products?filter[active]=false&page[size]=100')).body.data;
      assert.ok(inactive.some((p: any) => p.id === id));
      assert.ok(inactive.every((p: any) => p.attributes.active === false));
      const active = (await service.client.get('/products?filter[active]=true&page[size]=100')).body.data;
      assert.ok(active.every((p: any) => p.attributes.active === true));
    });

    it('answers 400 naming the parameter for a filter value it does not know', async () => {
      for (const [query, parameter] of [
        ['filter[active]=yes', 'filter[active]'],
        ['filter[name]=x', 'filter[name]'],
        ['page[size]=0', 'page[size]'],
      ]) {
        const error = onlyError(await service.client.get(`/products?${query}`), 400);
        assert.equal(error.source.parameter, parameter, query);
      }
    });
  });

  describe('GET /products/{id}', () => {
    it('carries in meta the number of its subscriptions active now', async () => {
      const id = uniqueId();
      await service.client.post('/products', productDocument({}, id));
      const user = await createUser(service.client);
      await subscribe(user, id, { dateStarted: inDays(-10), dateEnded: inDays(10) });
      await subscribe(user, id, { dateStarted: inDays(-10), dateEnded: null });
      await subscribe(user, id, { dateStarted: inDays(5), dateEnded: null });
      await subscribe(user, id, { dateStarted: inDays(-10), dateEnded: inDays(-5) });
      const response = await service.client.get(`/products/${id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.data.meta, { activeSubscriptions: 2 });
      assert.equal(response.headers.get('etag'), '"1"');
    });

    it('answers 404 for a product that does not exist', async () => {
      const error = onlyError(await service.client.get(`/products/${uniqueId('missing')}`), 404);
      assert.equal(error.code, 'RECORD_NOT_FOUND');
    });
  });

  describe('PUT and PATCH /products/{id}', () => {
    it('changes only the attributes sent and answers 200 with the product and its new ETag', async () => {
      const id = uniqueId();
      await service.client.post('/products', productDocument({ description: 'Old', resource: 'print' }, id));
      for (const method of ['patch', 'put'] as const) {
        const response = await service.client[method](`/products/${id}`, {
          data: { type: 'products', id, attributes: { description: null, active: method === 'put' } },
        });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(
          [response.body.data.attributes.description, response.body.data.attributes.resource],
          [null, 'print'],
        );
      }
      const read = await service.client.get(`/products/${id}`);
      assert.equal(read.headers.get('etag'), '"3"');
    });

    it('answers 412 to a change whose If-Match is stale, and 409 to an id that differs from the address', async () => {
      const id = uniqueId();
      await service.client.post('/products', productDocument({}, id));
      const stale = await service.client.patch(
        `/products/${id}`,
        { data: { type: 'products', id, attributes: { name: 'Late' } } },
        { headers: { 'if-match': '"9"' } },
      );
      assert.equal(onlyError(stale, 412).code, 'PRECONDITION_FAILED');
      const other = await service.client.patch(`/products/${id}`, {
        data: { type: 'products', id: 'other', attributes: {} },
      });
      assert.equal(onlyError(other, 409).code, 'ID_CONFLICT');
    });
  });

  describe('DELETE /products/{id}', () => {
    it('deletes a product nothing names: 204, then 404', async () => {
      const id = uniqueId();
      await service.client.post('/products', productDocument({}, id));
      assert.equal((await service.client.delete(`/products/${id}`)).status, 204);
      assert.equal((await service.client.get(`/products/${id}`)).status, 404);
      assert.equal((await service.client.delete(`/products/${id}`)).status, 404);
    });

    it('answers 409 STILL_REFERENCED saying how many subscriptions name it, and keeps it', async () => {
      const id = uniqueId();
      const user = await createUser(service.client);
      await subscribe(user, id);
      await subscribe(user, id);
      const error = onlyError(await service.client.delete(`/products/${id}`), 409);
      assert.equal(error.code, 'STILL_REFERENCED');
      assert.equal(error.detail, `product ${id} is still referred to by 2 subscriptions`);
      assert.equal((await service.client.get(`/products/${id}`)).status, 200);
    });
  });
});
