/**
 * GET /users/{id}/access over real HTTP on both stores: what a reader's subscriptions active now
 * give them, the paywall's question, and which give it. (What site licences give through the
 * reader's email domain: site-licences.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const now = Date.now();
  /** An instant `days` from now, to the second, as the service writes it back. */
  const inDays = (days: number) => new Date(now + days * 86_400_000).toISOString().slice(0, 19) + '+00:00';
  const subscribe = async (userId: string, attributes: Record<string, unknown>, product?: string) => {
    const relationships = product === undefined ? undefined : { product: { data: { type: 'products', id: product } } };
    const response = await service.client.post(
      `/users/${userId}/subscriptions`,
      subscriptionDocument(attributes, relationships),
    );
    assert.equal(response.status, 201, response.text);
    return response.body.data.id as string;
  };
  const accessOf = async (userId: string) => {
    const response = await service.client.get(`/users/${userId}/access`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      [response.body.data.type, response.body.data.id, response.body.data.links.self],
      ['access', userId, `${service.baseUrl}/users/${userId}/access`],
    );
    return response.body.data.attributes;
  };

  describe('GET /users/{id}/access', () => {
    it('gives online, not print, until the end of an active online subscription', async () => {
      const user = await createUser(service.client);
      const id = await subscribe(user, { resource: 'online', dateStarted: inDays(-30), dateEnded: inDays(30) });
      assert.deepEqual(await accessOf(user), {
        online: true,
        print: false,
        until: inDays(30),
        products: [],
        sources: [{ subscription: id, via: 'own' }],
      });
    });

    it('gives both for print-online, until the latest end, with the products of the active subscriptions', async () => {
      const [a, b] = [uniqueId('a'), uniqueId('b')];
      const user = await createUser(service.client);
      const first = await subscribe(
        user,
        { resource: 'print-online', dateStarted: inDays(-30), dateEnded: inDays(10) },
        b,
      );
      const second = await subscribe(user, { resource: 'online', dateStarted: inDays(-30), dateEnded: inDays(40) }, a);
      await subscribe(user, { resource: 'online', dateStarted: inDays(-30), dateEnded: inDays(-1) }, uniqueId('old'));
      assert.deepEqual(await accessOf(user), {
        online: true,
        print: true,
        until: inDays(40),
        products: [a, b],
        sources: [
          { subscription: first, via: 'own' },
          { subscription: second, via: 'own' },
        ],
      });
    });

    it("takes the product's resource for a subscription that names none", async () => {
      const paper = uniqueId('paper');
      await service.client.post('/products', {
        data: { type: 'products', id: paper, attributes: { name: 'Paper', resource: 'print' } },
      });
      const user = await createUser(service.client);
      const id = await subscribe(user, { resource: null, dateStarted: inDays(-1), dateEnded: null }, paper);
      assert.deepEqual(await accessOf(user), {
        online: false,
        print: true,
        until: null,
        products: [paper],
        sources: [{ subscription: id, via: 'own' }],
      });
    });

    it('gives nothing for subscriptions not begun, ended or expired', async () => {
      const user = await createUser(service.client);
      await subscribe(user, { resource: 'print-online', dateStarted: inDays(2), dateEnded: null });
      await subscribe(user, { resource: 'print-online', dateStarted: inDays(-20), dateEnded: inDays(-2) });
      const expiring = await subscribe(user, { resource: 'print-online', dateStarted: inDays(-20), dateEnded: null });
      await service.client.put(`/users/${user}/subscriptions/${expiring}/expire`);
      assert.deepEqual(await accessOf(user), { online: false, print: false, until: null, products: [], sources: [] });
    });

    it('answers 404 for a user that does not exist, or an id that cannot be one', async () => {
      for (const id of ['999999999', 'abc']) {
        assert.equal(onlyError(await service.client.get(`/users/${id}/access`), 404).code, 'RECORD_NOT_FOUND');
      }
    });
  });
});
