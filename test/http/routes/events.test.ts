/**
 * The events feed: one event for every change to a user or a subscription, written with the
 * change itself, carrying ids and attribute names but never a value, paged by cursor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, issueKey, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { createStaff, signInSession } from '../../support/staff.js';

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

    it('names who made each change: the credential, or the staff member of a console session, by name', async () => {
      const userId = await createUser(service.client);
      const key = await issueKey(service.client, ['write'], { name: 'Mail house' });
      const patch = (givenName: string) => ({ data: { type: 'users', id: userId, attributes: { givenName } } });
      assert.equal((await service.client.as(key.secret).patch(`/users/${userId}`, patch('Key'))).status, 200);
      const agent = await createStaff(service.client, 'agent', 'Grace Hopper');
      const session = await signInSession(service.client, agent);
      assert.equal((await session.client.patch(`/users/${userId}`, patch('Console'))).status, 200);
      assert.equal((await session.client.post(`/users/${userId}/subscriptions`, subscriptionDocument())).status, 201);
      const actors = (await eventsOf(userId)).map((e: any) => e.actor);
      assert.deepEqual(actors, [
        { type: 'credentials', id: 'CIRCULATION_ADMIN_KEY', name: 'CIRCULATION_ADMIN_KEY' },
        { type: 'credentials', id: key.id, name: 'Mail house' },
        { type: 'staff', id: agent.id, name: 'Grace Hopper' },
        { type: 'staff', id: agent.id, name: 'Grace Hopper' },
      ]);
    });

    it('names staff and keys only to administrators and the console: a read key learns their kind and id', async () => {
      const userId = await createUser(service.client);
      const key = await issueKey(service.client, ['write'], { name: 'Mail house' });
      const patch = { data: { type: 'users', id: userId, attributes: { givenName: 'Keyed' } } };
      assert.equal((await service.client.as(key.secret).patch(`/users/${userId}`, patch)).status, 200);
      const reader = service.client.as((await issueKey(service.client, ['read'])).secret);
      const actors = (await reader.get(`/events?filter[user]=${userId}`)).body.data.map((e: any) => e.attributes.actor);
      assert.deepEqual(actors, [
        { type: 'credentials', id: 'CIRCULATION_ADMIN_KEY', name: 'CIRCULATION_ADMIN_KEY' },
        { type: 'credentials', id: key.id, name: null },
      ]);
    });

    it("lists a user's events newest first with sort=-id, paging older through links.next", async () => {
      const userId = await createUser(service.client);
      for (let i = 0; i < 4; i += 1) await createSubscription(service.client, userId);
      const oldestFirst = (await service.client.get(`/events?filter[user]=${userId}`)).body.data.map((e: any) => e.id);
      const ids: string[] = [];
      let next: string | undefined = `/events?filter[user]=${userId}&sort=-id&page[size]=2`;
      while (next) {
        const page = await service.client.get(next.replace(service.baseUrl, ''));
        assert.equal(page.status, 200, page.text);
        ids.push(...page.body.data.map((e: any) => e.id));
        next = page.body.links.next;
        if (next) assert.match(next, /sort=-id/);
      }
      assert.equal(ids.length, 5);
      assert.deepEqual(ids, [...oldestFirst].reverse());
    });

    it('refuses a sort other than id or -id with 400', async () => {
      const error = onlyError(await service.client.get('/events?sort=occurredAt'), 400);
      assert.deepEqual(error.source, { parameter: 'sort' });
    });

    it('is open to a read credential, and refuses an unknown type with 400', async () => {
      const reader = service.client.as((await issueKey(service.client, ['read'])).secret);
      assert.equal((await reader.get('/events')).status, 200);
      const error = onlyError(await reader.get('/events?filter[type]=user.renamed'), 400);
      assert.deepEqual(error.source, { parameter: 'filter[type]' });
    });
  });
});
