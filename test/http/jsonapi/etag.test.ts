/**
 * ETags and If-Match: every single-resource response names the resource's version, and a write
 * that sends a stale one is refused with 412 and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createSubscription,
  createUser,
  createWebhook,
  issueKey,
  onlyError,
  subscriptionDocument,
  userDocument,
} from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const ifMatch = (etag: string) => ({ headers: { 'if-match': etag } });
  const userUpdate = (id: string, attributes: object) => ({ data: { type: 'users', id, attributes } });

  describe('ETag', () => {
    it('comes with a created user and a read one, and changes when the user does', async () => {
      const created = await service.client.post('/users', userDocument());
      const etag = created.headers.get('etag') as string;
      assert.match(etag, /^"\d+"$/);
      const id = created.body.data.id;
      assert.equal((await service.client.get(`/users/${id}`)).headers.get('etag'), etag);
      await service.client.put(`/users/${id}`, userUpdate(id, { newsletters: { add: ['n'] } }));
      assert.notEqual((await service.client.get(`/users/${id}`)).headers.get('etag'), etag);
    });

    it('comes with every single-subscription response', async () => {
      const userId = await createUser(service.client);
      const created = await service.client.post(`/users/${userId}/subscriptions`, subscriptionDocument());
      const id = created.body.data.id;
      const path = `/users/${userId}/subscriptions/${id}`;
      const read = await service.client.get(path);
      const updated = await service.client.put(path, {
        data: { type: 'subscriptions', id, attributes: { trial: true } },
      });
      const expired = await service.client.put(`${path}/expire`);
      const tags = [created, read, updated, expired].map((r) => r.headers.get('etag'));
      assert.deepEqual(tags, ['"1"', '"1"', '"2"', '"3"']);
    });

    it('comes with a credential, a webhook and a delivery, and changes when they do', async () => {
      const key = await service.client.post('/api-keys', {
        data: { type: 'api-keys', attributes: { name: 'tagged', scopes: ['read'] } },
      });
      assert.equal(key.headers.get('etag'), '"1"');
      const keyPath = `/api-keys/${key.body.data.id}`;
      assert.equal((await service.client.get(keyPath)).headers.get('etag'), '"1"');
      await service.client.delete(keyPath);
      assert.equal((await service.client.get(keyPath)).headers.get('etag'), '"2"');

      const webhookId = await createWebhook(service.client);
      assert.equal((await service.client.get(`/webhooks/${webhookId}`)).headers.get('etag'), '"1"');
      await createUser(service.client);
      const [delivery] = (await service.client.get(`/webhooks/${webhookId}/deliveries`)).body.data;
      const deliveryPath = new URL(delivery.links.self).pathname;
      assert.equal((await service.client.get(deliveryPath)).headers.get('etag'), '"1"');
      const [claimed] = await service.store.webhooks.claimDeliveries(Date.now(), 1000, 1);
      assert.equal(claimed?.delivery.id, delivery.id);
      const failed = { state: 'failed', at: Date.now(), nextAttemptAt: null, status: 500, error: 'no' } as const;
      await service.store.webhooks.finishDelivery(delivery.id, claimed!.delivery.version, failed);
      assert.equal((await service.client.get(deliveryPath)).headers.get('etag'), '"3"');
      const redelivered = await service.client.post(`${deliveryPath}/redeliver`, undefined);
      assert.equal(redelivered.headers.get('etag'), '"4"');
      await service.client.delete(`/webhooks/${webhookId}`);
    });

    it('is left out of a sparse or compound representation', async () => {
      const userId = await createUser(service.client);
      assert.equal((await service.client.get(`/users/${userId}?fields[users]=email`)).headers.get('etag'), null);
      assert.equal((await service.client.get(`/users/${userId}?include=subscriptions`)).headers.get('etag'), null);
    });
  });

  describe('If-Match', () => {
    it('lets a write with the current ETag through', async () => {
      const created = await service.client.post('/users', userDocument());
      const id = created.body.data.id;
      const response = await service.client.patch(
        `/users/${id}`,
        userUpdate(id, { jobTitle: 'Editor' }),
        ifMatch(created.headers.get('etag') as string),
      );
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.attributes.jobTitle, 'Editor');
    });

    it('refuses a stale ETag with 412 on PUT, PATCH and DELETE of a user, changing nothing', async () => {
      const created = await service.client.post('/users', userDocument());
      const id = created.body.data.id;
      const stale = created.headers.get('etag') as string;
      await service.client.put(`/users/${id}`, userUpdate(id, { givenName: 'Moved on' }));
      const state = await service.snapshot();
      for (const method of ['PUT', 'PATCH'] as const) {
        const error = onlyError(
          await service.client.request(method, `/users/${id}`, {
            body: userUpdate(id, { givenName: 'Overwritten' }),
            ...ifMatch(stale),
          }),
          412,
        );
        assert.deepEqual(error.source, { header: 'If-Match' });
      }
      onlyError(await service.client.delete(`/users/${id}`, ifMatch(stale)), 412);
      assert.equal(await service.snapshot(), state);
    });

    it("refuses a stale ETag with 412 on a subscription's update, expiry and deletion", async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const path = `/users/${userId}/subscriptions/${id}`;
      await service.client.put(path, { data: { type: 'subscriptions', id, attributes: { trial: true } } });
      const state = await service.snapshot();
      const stale = ifMatch('"1"');
      onlyError(
        await service.client.put(path, { data: { type: 'subscriptions', id, attributes: { trial: false } } }, stale),
        412,
      );
      onlyError(await service.client.put(`${path}/expire`, undefined, stale), 412);
      onlyError(await service.client.delete(path, stale), 412);
      assert.equal(await service.snapshot(), state);
      assert.equal((await service.client.delete(path, ifMatch('"2"'))).status, 204);
    });

    it('refuses a stale ETag with 412 on revoking a credential, which then still works', async () => {
      const key = await issueKey(service.client, ['read']);
      onlyError(await service.client.delete(`/api-keys/${key.id}`, ifMatch('"2"')), 412);
      assert.equal((await service.client.as(key.secret).get('/users')).status, 200);
      assert.equal((await service.client.delete(`/api-keys/${key.id}`, ifMatch('"1"'))).status, 204);
      onlyError(await service.client.as(key.secret).get('/users'), 401);
    });

    it('treats a weak ETag as never matching, and * as any version', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const path = `/users/${userId}/subscriptions/${id}`;
      onlyError(await service.client.delete(path, ifMatch('W/"1"')), 412);
      assert.equal((await service.client.put(`${path}/expire`, undefined, ifMatch('*'))).status, 200);
    });

    it('answers 404, not 412, for a resource that does not exist', async () => {
      onlyError(await service.client.delete('/users/987654', ifMatch('"1"')), 404);
    });
  });
});
