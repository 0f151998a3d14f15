/**
 * The audit trail: every write records who made it, what it changed, and when — attribute names
 * only, never values — and only admins read it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, issueKey, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { startService, type Client, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  let writer: Client;
  let writerId: string;
  before(async () => {
    service = await startService(kind);
    const key = await issueKey(service.client, ['write']);
    writer = service.client.as(key.secret);
    writerId = key.id;
  });
  after(() => service.close());

  async function trailOf(resourceType: string, resourceId: string) {
    const response = await service.client.get(
      `/audit-events?filter[resourceType]=${resourceType}&filter[resourceId]=${resourceId}`,
    );
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((e: any) => e.attributes);
  }

  describe('the audit trail', () => {
    it('records each write to a user with its credential, action and attribute names', async () => {
      const id = await createUser(writer, { password: 'a secret password', givenName: 'Ada' });
      await writer.put(`/users/${id}`, { data: { type: 'users', id, attributes: { password: 'another password' } } });
      await writer.delete(`/users/${id}`);
      const trail = await trailOf('users', id);
      assert.deepEqual(
        trail.map((e: any) => [e.action, e.actor, e.userId, e.attributes]),
        [
          ['create', writerId, id, ['email', 'familyName', 'givenName', 'password']],
          ['update', writerId, id, ['password']],
          ['delete', writerId, id, []],
        ],
      );
      for (const entry of trail) assert.match(entry.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    });

    it('records subscription writes, expiry once, and relationships by name', async () => {
      const userId = await createUser(writer);
      const created = await writer.post(
        `/users/${userId}/subscriptions`,
        subscriptionDocument({}, { product: { data: { type: 'products', id: 'p' } } }),
      );
      const id = created.body.data.id;
      await writer.put(`/users/${userId}/subscriptions/${id}`, {
        data: { type: 'subscriptions', id, attributes: { trial: true } },
      });
      await writer.put(`/users/${userId}/subscriptions/${id}/expire`);
      await writer.put(`/users/${userId}/subscriptions/${id}/expire`);
      await writer.delete(`/users/${userId}/subscriptions/${id}`);
      const trail = await trailOf('subscriptions', id);
      assert.deepEqual(
        trail.map((e: any) => [e.action, e.userId, e.attributes]),
        [
          ['create', userId, ['dateEnded', 'dateStarted', 'license', 'product', 'resource', 'trial']],
          ['update', userId, ['trial']],
          ['expire', userId, ['dateEnded', 'expired']],
          ['delete', userId, []],
        ],
      );
    });

    it('records nothing for a refused write', async () => {
      const userId = await createUser(writer);
      const before = await trailOf('users', userId);
      const refused = await writer.put(`/users/${userId}`, {
        data: { type: 'users', id: userId, attributes: { email: 'not an email' } },
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(await trailOf('users', userId), before);
    });

    it('records credentials issued and revoked, by the admin who did it', async () => {
      const key = await issueKey(service.client, ['read']);
      await service.client.delete(`/api-keys/${key.id}`);
      const trail = await trailOf('api-keys', key.id);
      assert.deepEqual(
        trail.map((e: any) => [e.action, e.actor]),
        [
          ['create', 'CIRCULATION_ADMIN_KEY'],
          ['revoke', 'CIRCULATION_ADMIN_KEY'],
        ],
      );
    });

    it('pages by cursor, following links.next', async () => {
      const userId = await createUser(writer);
      for (let i = 0; i < 4; i += 1) await createSubscription(writer, userId);
      const ids: string[] = [];
      let next: string | undefined = `/audit-events?filter[actor]=${writerId}&page[size]=2`;
      while (next) {
        const page = await service.client.get(next.replace(service.baseUrl, ''));
        assert.ok(page.body.data.length <= 2);
        ids.push(...page.body.data.map((e: any) => e.id));
        next = page.body.links.next;
      }
      const all = await service.client.get(`/audit-events?filter[actor]=${writerId}`);
      assert.deepEqual(
        ids,
        all.body.data.map((e: any) => e.id),
      );
      assert.ok(ids.length >= 5);
    });

    for (const parameter of ['filter[actor]', 'filter[resourceType]', 'filter[resourceId]']) {
      it(`refuses a ${parameter} holding a NUL with 400 naming it`, async () => {
        const error = onlyError(await service.client.get(`/audit-events?${parameter}=a%00b`), 400);
        assert.deepEqual(error.source, { parameter });
        assert.equal(error.detail, `${parameter} must not contain NUL characters`);
      });
    }

    it('is refused to a write credential', async () => {
      onlyError(await writer.get('/audit-events'), 403);
    });
  });
});
