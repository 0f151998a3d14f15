/**
 * Conditional GET: a read whose If-None-Match names the current ETag is a 304 with no body and the
 * ETag, on every read that gives an ETag; anything else gets the whole representation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, createWebhook, issueKey, uniqueEmail } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const ifNoneMatch = (tags: string) => ({ headers: { 'if-none-match': tags } });

  describe('If-None-Match', () => {
    it('naming the current ETag answers 304 with no body, keeping the ETag', async () => {
      const id = await createUser(service.client);
      const read = await service.client.get(`/users/${id}`);
      const etag = read.headers.get('etag') as string;
      const again = await service.client.get(`/users/${id}`, ifNoneMatch(etag));
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal(again.headers.get('etag'), etag);
      assert.equal(again.headers.get('cache-control'), 'no-store');
    });

    it('naming a stale ETag answers 200 with the resource as it now is', async () => {
      const id = await createUser(service.client);
      const stale = (await service.client.get(`/users/${id}`)).headers.get('etag') as string;
      await service.client.put(`/users/${id}`, { data: { type: 'users', id, attributes: { jobTitle: 'Editor' } } });
      const response = await service.client.get(`/users/${id}`, ifNoneMatch(stale));
      assert.equal(response.status, 200);
      assert.equal(response.body.data.attributes.jobTitle, 'Editor');
      assert.notEqual(response.headers.get('etag'), stale);
    });

    it('compares weakly: W/"n" names the ETag "n"', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const response = await service.client.get(`/users/${userId}/subscriptions/${id}`, ifNoneMatch('W/"1"'));
      assert.equal(response.status, 304);
      assert.equal(response.headers.get('etag'), '"1"');
    });

    it('takes a list of tags, and * for any version', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const path = `/users/${userId}/subscriptions/${id}`;
      assert.equal((await service.client.get(path, ifNoneMatch('"7", W/"9" ,"1"'))).status, 304);
      assert.equal((await service.client.get(path, ifNoneMatch('"7", "9"'))).status, 200);
      assert.equal((await service.client.get(path, ifNoneMatch('*'))).status, 304);
    });

    it('is answered on every read that gives an ETag: products, newsletters, credentials, webhooks, deliveries, staff', async () => {
      await service.client.post('/products', {
        data: { type: 'products', id: 'conditional-product', attributes: { name: 'Conditional' } },
      });
      await service.client.post('/newsletters', {
        data: { type: 'newsletters', id: 'conditional-letter', attributes: { name: 'Conditional' } },
      });
      const key = await issueKey(service.client, ['read']);
      const webhookId = await createWebhook(service.client);
      await createUser(service.client);
      const [delivery] = (await service.client.get(`/webhooks/${webhookId}/deliveries`)).body.data;
      const staff = await service.client.post('/staff', {
        data: {
          type: 'staff',
          attributes: { email: uniqueEmail('staff.example.com'), name: 'Conditional', role: 'agent' },
        },
      });
      assert.equal(staff.status, 201, staff.text);
      const paths = [
        '/products/conditional-product',
        '/newsletters/conditional-letter',
        `/api-keys/${key.id}`,
        `/webhooks/${webhookId}`,
        new URL(delivery.links.self).pathname,
        `/staff/${staff.body.data.id}`,
      ];
      for (const path of paths) {
        const etag = (await service.client.get(path)).headers.get('etag') as string;
        assert.match(etag, /^"\d+"$/, path);
        const response = await service.client.get(path, ifNoneMatch(etag));
        assert.equal(response.status, 304, path);
        assert.equal(response.text, '', path);
      }
      await service.client.delete(`/webhooks/${webhookId}`);
    });

    it('does not apply to a sparse or compound read, which has no ETag', async () => {
      const id = await createUser(service.client);
      const sparse = await service.client.get(`/users/${id}?fields[users]=email`, ifNoneMatch('*'));
      assert.equal(sparse.status, 200);
      assert.equal(sparse.headers.get('etag'), null);
    });

    it('answers 404 for a resource that does not exist, even with *', async () => {
      assert.equal((await service.client.get('/users/987654', ifNoneMatch('*'))).status, 404);
    });
  });
});
