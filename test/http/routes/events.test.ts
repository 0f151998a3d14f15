/**
 * The events feed: one event for every change to a user or a subscription, written with the
 * change itself, carrying ids and attribute names but never a value, paged by cursor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, issueKey, onlyError } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const eventsOf = async (userId: string) =>
    (await service.client.get(`/events?filter[user]=${userId}`)).body.data.map((e: any) => e.attributes);

  describe('GET /events', () => {
    it('has one event for each change to a user and their subscriptions, in order', async () => {
      const userId = await createUser(service.client, { password: 'never in an event' });
      await service.client.put(`/users/${userId}`, {
        data: { type: 'users', id: userId, attributes: { password: 'still never', givenName: 'Ada' } },
      });
      const id = await createSubscription(service.client, userId);
      const path = `/users/${userId}/subscriptions/${id}`;
      await service.client.put(path, { data: { type: 'subscriptions', id, attributes: { trial: true } } });
      await service.client.put(`${path}/expire`);
      await service.client.delete(path);
      await service.client.delete(`/users/${userId}`);
      const events = await eventsOf(userId);
      assert.deepEqual(
        events.map((e: any) => [e.eventType, e.resourceType === 'users' ? 'user' : 'subscription']),
        [
          ['user.created', 'user'],
          ['user.updated', 'user'],
          ['subscription.created', 'subscription'],
          ['subscription.updated', 'subscription'],
          ['subscription.expired', 'subscription'],
          ['subscription.deleted', 'subscription'],
          ['user.deleted', 'user'],
        ],
      );
      assert.deepEqual(events[1].changed, ['givenName', 'password']);
      const text = JSON.stringify(events);
      assert.ok(!text.includes('never in an event') && !text.includes('still never'));
    });

    it('has no event for a refused change', async () => {
      const userId = await createUser(service.client);
      await service.client.put(`/users/${userId}`, {
        data: { type: 'users', id: userId, attributes: { email: 'bad' } },
      });
      assert.deepEqual(
        (await eventsOf(userId)).map((e: any) => e.eventType),
        ['user.created'],
      );
    });

    it('filters by type, and pages by cursor through links.next', async () => {
      const userId = await createUser(service.client);
      for (let i = 0; i < 5; i += 1) await createSubscription(service.client, userId);
      const ids: string[] = [];
      let next: string | undefined = `/events?filter[user]=${userId}&filter[type]=subscription.created&page[size]=2`;
      while (next) {
        const page = await service.client.get(next.replace(service.baseUrl, ''));
        assert.ok(page.body.data.every((e: any) => e.attributes.eventType === 'subscription.created'));
        ids.push(...page.body.data.map((e: any) => e.id));
        next = page.body.links.next;
      }
      assert.equal(ids.length, 5);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => Number(a) - Number(b)),
      );
    });

    it('leaves credentials out: they are not users or subscriptions', async () => {
      const key = await issueKey(service.client, ['read']);
      const all = (await service.client.get('/events?page[size]=100')).body.data;
      assert.ok(all.every((e: any) => e.attributes.resourceId !== key.id || e.attributes.resourceType !== 'api-keys'));
    });

    it('is open to a read credential, and refuses an unknown type with 400', async () => {
      const reader = service.client.as((await issueKey(service.client, ['read'])).secret);
      assert.equal((await reader.get('/events')).status, 200);
      const error = onlyError(await reader.get('/events?filter[type]=user.renamed'), 400);
      assert.deepEqual(error.source, { parameter: 'filter[type]' });
    });
  });
});
