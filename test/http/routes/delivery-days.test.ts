/**
 * Delivery days: a product's weekdays (all seven by default), and a subscription's, which may
 * only narrow its product's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { createPrintProduct, createPrintSubscription } from '../../support/print.js';
import { forEachStore } from '../../support/stores.js';
import { startService, type Service } from '../../support/service.js';

const EVERY_DAY = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  describe('a product', () => {
    it('is delivered every day unless it says otherwise, and on the days it names, Monday first', async () => {
      const every = await createPrintProduct(service.client);
      const weekend = await createPrintProduct(service.client, { deliveryDays: ['sunday', 'saturday'] });
      assert.deepEqual((await service.client.get(`/products/${every}`)).body.data.attributes.deliveryDays, EVERY_DAY);
      assert.deepEqual((await service.client.get(`/products/${weekend}`)).body.data.attributes.deliveryDays, [
        'saturday',
        'sunday',
      ]);
    });

    it('changes its days by PATCH', async () => {
      const id = await createPrintProduct(service.client);
      const response = await service.client.patch(`/products/${id}`, {
        data: { type: 'products', id, attributes: { deliveryDays: ['sunday'] } },
      });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data.attributes.deliveryDays, ['sunday']);
    });

    it('refuses no days, a day twice, and a day that is not a weekday', async () => {
      for (const deliveryDays of [[], ['monday', 'monday'], ['Monday'], ['funday'], 'monday']) {
        const error = onlyError(
          await service.client.post('/products', {
            data: { type: 'products', attributes: { name: 'Paper', deliveryDays } },
          }),
          422,
        );
        assert.match(error.source.pointer, /^\/data\/attributes\/deliveryDays/, JSON.stringify(deliveryDays));
      }
    });
  });

  describe("a subscription's delivery days", () => {
    it("may be some of its product's, and are null when it keeps them all", async () => {
      const weekend = await createPrintProduct(service.client, { deliveryDays: ['saturday', 'sunday'] });
      const userId = await createUser(service.client);
      const all = await createPrintSubscription(service.client, userId, {}, weekend);
      const sundays = await createPrintSubscription(service.client, userId, { deliveryDays: ['sunday'] }, weekend);
      const read = async (id: string) =>
        (await service.client.get(`/users/${userId}/subscriptions/${id}`)).body.data.attributes.deliveryDays;
      assert.equal(await read(all), null);
      assert.deepEqual(await read(sundays), ['sunday']);
    });

    it("are refused where they are not all its product's, at /data/attributes/deliveryDays", async () => {
      const weekend = await createPrintProduct(service.client, { deliveryDays: ['saturday', 'sunday'] });
      const userId = await createUser(service.client);
      const error = onlyError(
        await service.client.post(
          `/users/${userId}/subscriptions`,
          subscriptionDocument(
            { resource: null, deliveryDays: ['friday', 'saturday'] },
            { product: { data: { type: 'products', id: weekend } } },
          ),
        ),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/deliveryDays');
      assert.match(error.detail, /saturday, sunday/);
    });

    it('may be any days without a product, and are cleared by null', async () => {
      const userId = await createUser(service.client);
      const id = await createPrintSubscription(service.client, userId, { deliveryDays: ['monday', 'thursday'] });
      const cleared = await service.client.patch(`/users/${userId}/subscriptions/${id}`, {
        data: { type: 'subscriptions', id, attributes: { deliveryDays: null } },
      });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.data.attributes.deliveryDays, null);
    });

    it('are held to a product the subscription is moved to', async () => {
      const weekend = await createPrintProduct(service.client, { deliveryDays: ['saturday', 'sunday'] });
      const userId = await createUser(service.client);
      const id = await createPrintSubscription(service.client, userId, { deliveryDays: ['monday'] });
      const moved = await service.client.patch(`/users/${userId}/subscriptions/${id}`, {
        data: { type: 'subscriptions', id, relationships: { product: { data: { type: 'products', id: weekend } } } },
      });
      assert.equal(onlyError(moved, 422).source.pointer, '/data/attributes/deliveryDays');
    });
  });
});
