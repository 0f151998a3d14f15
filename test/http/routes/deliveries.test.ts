/**
 * The print run of a date, and its draw report, on every store: who is delivered (print, in term,
 * on a delivery day, not held), where (the temporary address in force, else the reader's), paged
 * by links.next.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, onlyError } from '../../support/fixtures.js';
import { createPrintProduct, createPrintSubscription, dateIn, midnightOf, nextWeekday } from '../../support/print.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { startService, type Service } from '../../support/service.js';

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  /** A reader at a postal code no other test uses, and the code. */
  async function readerAt(postalCode = randomUUID().slice(0, 12)) {
    const address = { streetAddress: '1 Print Lane', addressLocality: 'Inkton', addressCountry: 'GB', postalCode };
    return { userId: await createUser(service.client, { address }), postalCode, address };
  }

  const run = async (date: string, postalCode: string, more = '') =>
    service.client.get(`/deliveries?filter[date]=${date}&filter[postalCode]=${encodeURIComponent(postalCode)}${more}`);

  describe('GET /deliveries', () => {
    it('delivers a print subscription to its reader’s address on every date of its term', async () => {
      const { userId, postalCode, address } = await readerAt();
      const subscriptionId = await createPrintSubscription(service.client, userId);
      const response = await run(dateIn(3), postalCode);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data, [
        {
          type: 'deliveries',
          id: `${dateIn(3)}.${subscriptionId}`,
          attributes: {
            date: dateIn(3),
            address: { ...address, unitNumber: null, addressRegion: null },
            redelivery: false,
            copies: 1,
          },
          relationships: {
            user: { data: { type: 'users', id: userId } },
            subscription: { data: { type: 'subscriptions', id: subscriptionId } },
            product: { data: null },
          },
        },
      ]);
    });

    it('leaves out online subscriptions, and dates outside the term', async () => {
      const { userId, postalCode } = await readerAt();
      await createSubscription(service.client, userId, { resource: 'online', dateEnded: null });
      await createPrintSubscription(service.client, userId, {
        dateStarted: midnightOf(dateIn(5)),
        dateEnded: midnightOf(dateIn(7)),
      });
      for (const [days, count] of [
        [4, 0],
        [5, 1],
        [6, 1],
        [7, 0],
      ] as const) {
        assert.equal((await run(dateIn(days), postalCode)).body.data.length, count, `day ${days}`);
      }
    });

    it("delivers on the subscription's delivery days only, a product's that gives print", async () => {
      const weekend = await createPrintProduct(service.client, { deliveryDays: ['saturday', 'sunday'] });
      const { userId, postalCode } = await readerAt();
      await createPrintSubscription(service.client, userId, { deliveryDays: ['sunday'] }, weekend);
      assert.equal((await run(nextWeekday(5, 1), postalCode)).body.data.length, 0, 'Saturday');
      assert.equal((await run(nextWeekday(6, 1), postalCode)).body.data.length, 1, 'Sunday');
      assert.equal((await run(nextWeekday(0, 1), postalCode)).body.data.length, 0, 'Monday');
      const sunday = await run(nextWeekday(6, 1), postalCode, `&filter[product]=${weekend}`);
      assert.deepEqual(sunday.body.data[0].relationships.product.data, { type: 'products', id: weekend });
      assert.equal((await run(nextWeekday(6, 1), postalCode, '&filter[product]=other')).body.data.length, 0);
    });

    it('leaves out the dates a hold covers, and not those of a withdrawn one', async () => {
      const { userId, postalCode } = await readerAt();
      const subscriptionId = await createPrintSubscription(service.client, userId);
      const holds = `/users/${userId}/subscriptions/${subscriptionId}/holds`;
      const held = await service.client.post(holds, {
        data: { type: 'holds', attributes: { startDate: dateIn(10), endDate: dateIn(11) } },
      });
      assert.equal((await run(dateIn(9), postalCode)).body.data.length, 1);
      assert.equal((await run(dateIn(10), postalCode)).body.data.length, 0);
      assert.equal((await run(dateIn(11), postalCode)).body.data.length, 0);
      assert.equal((await run(dateIn(12), postalCode)).body.data.length, 1);
      await service.client.delete(`${holds}/${held.body.data.id}`);
      assert.equal((await run(dateIn(10), postalCode)).body.data.length, 1);
    });

    it('delivers to the temporary address in force on the date, the whole of it, and filters by its postal code', async () => {
      const { userId, postalCode } = await readerAt();
      const subscriptionId = await createPrintSubscription(service.client, userId);
      const away = randomUUID().slice(0, 12);
      const temporary = { streetAddress: '2 Shore Road', postalCode: away };
      const made = await service.client.post(`/users/${userId}/temporary-addresses`, {
        data: {
          type: 'temporary-addresses',
          attributes: { startDate: dateIn(10), endDate: dateIn(11), address: temporary },
        },
      });
      assert.equal(made.status, 201, made.text);
      for (const [days, at] of [
        [9, postalCode],
        [10, away],
        [11, away],
        [12, postalCode],
      ] as const) {
        const home = (await run(dateIn(days), postalCode)).body.data;
        const there = (await run(dateIn(days), away)).body.data;
        assert.deepEqual([home.length, there.length], at === away ? [0, 1] : [1, 0], `day ${days}`);
      }
      const [delivery] = (await run(dateIn(10), away)).body.data;
      assert.equal(delivery.relationships.subscription.data.id, subscriptionId);
      // Nothing of the reader's own address shows through the fields the temporary one leaves unset.
      assert.deepEqual(delivery.attributes.address, {
        streetAddress: '2 Shore Road',
        unitNumber: null,
        addressLocality: null,
        addressRegion: null,
        addressCountry: null,
        postalCode: away,
      });
      const draw = (await service.client.get(`/reports/draw?filter[date]=${dateIn(10)}`)).body.data.attributes;
      const byCode = (code: string) => draw.byPostalCode.find((p: any) => p.postalCode === code);
      assert.deepEqual(byCode(away), { postalCode: away, copies: 1 });
      assert.equal(byCode(postalCode), undefined);
      const before = (await service.client.get(`/reports/draw?filter[date]=${dateIn(9)}`)).body.data.attributes;
      assert.equal(
        before.byPostalCode.find((p: any) => p.postalCode === away),
        undefined,
      );
      assert.deepEqual(
        before.byPostalCode.find((p: any) => p.postalCode === postalCode),
        { postalCode, copies: 1 },
      );
    });

    it('leaves an expired subscription out of every run to come, though its term was moved later since', async () => {
      const { userId, postalCode } = await readerAt();
      const subscriptionId = await createPrintSubscription(service.client, userId);
      const path = `/users/${userId}/subscriptions/${subscriptionId}`;
      assert.equal((await service.client.put(`${path}/expire`)).status, 200);
      const moved = await service.client.put(path, {
        data: { type: 'subscriptions', id: subscriptionId, attributes: { dateEnded: midnightOf(dateIn(30)) } },
      });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual((await run(dateIn(2), postalCode)).body.data, []);
      const draw = (await service.client.get(`/reports/draw?filter[date]=${dateIn(2)}`)).body.data.attributes;
      assert.equal(
        draw.byPostalCode.find((p: any) => p.postalCode === postalCode),
        undefined,
      );
    });

    it("delivers a product's subscriptions on the dates to come once it gives print, and not once it stops", async () => {
      const product = await createPrintProduct(service.client, { resource: 'online' });
      const { userId, postalCode } = await readerAt();
      const subscriptionId = await createPrintSubscription(service.client, userId, {}, product);
      const gives = async (resource: string) => {
        const changed = await service.client.patch(`/products/${product}`, {
          data: { type: 'products', id: product, attributes: { resource } },
        });
        assert.equal(changed.status, 200, changed.text);
      };
      const delivered = async () =>
        (await run(dateIn(2), postalCode)).body.data.map((d: any) => d.relationships.subscription.data.id);
      assert.deepEqual(await delivered(), []);
      await gives('print');
      assert.deepEqual(await delivered(), [subscriptionId]);
      await gives('print-online');
      assert.deepEqual(await delivered(), [subscriptionId]);
      await gives('online');
      assert.deepEqual(await delivered(), []);
    });

    it('delivers a subscription by its own resource, or by its product’s once it names none', async () => {
      const paper = await createPrintProduct(service.client);
      const site = await createPrintProduct(service.client, { resource: 'online' });
      const { userId, postalCode } = await readerAt();
      const subscriptionId = await createPrintSubscription(service.client, userId, { resource: 'online' }, paper);
      const path = `/users/${userId}/subscriptions/${subscriptionId}`;
      const put = async (attributes: Record<string, unknown>, product = paper) => {
        const changed = await service.client.put(path, {
          data: {
            type: 'subscriptions',
            id: subscriptionId,
            attributes,
            relationships: { product: { data: { type: 'products', id: product } } },
          },
        });
        assert.equal(changed.status, 200, changed.text);
      };
      const delivered = async () => (await run(dateIn(2), postalCode)).body.data.length;
      assert.equal(await delivered(), 0, 'naming online, of a print product');
      await put({ resource: null });
      assert.equal(await delivered(), 1, "naming none: the product's");
      await put({ resource: null }, site);
      assert.equal(await delivered(), 0, 'of an online product');
      await put({ resource: 'print' }, site);
      assert.equal(await delivered(), 1, 'naming print, of an online product');
    });

    it('still shows an expired subscription in the runs of the dates it was delivered on', async () => {
      const { userId, postalCode } = await readerAt();
      const subscriptionId = await createPrintSubscription(service.client, userId);
      assert.equal((await service.client.put(`/users/${userId}/subscriptions/${subscriptionId}/expire`)).status, 200);
      const past = (await run(dateIn(-2), postalCode)).body.data;
      assert.deepEqual(
        past.map((d: any) => d.relationships.subscription.data.id),
        [subscriptionId],
      );
      const draw = (await service.client.get(`/reports/draw?filter[date]=${dateIn(-2)}`)).body.data.attributes;
      assert.deepEqual(
        draw.byPostalCode.find((p: any) => p.postalCode === postalCode),
        { postalCode, copies: 1 },
      );
    });

    it('pages by links.next in subscription order', async () => {
      const { userId, postalCode } = await readerAt();
      const ids = [];
      for (let i = 0; i < 3; i += 1) ids.push(await createPrintSubscription(service.client, userId));
      const first = await run(dateIn(2), postalCode, '&page[size]=2');
      assert.deepEqual(
        first.body.data.map((d: any) => d.relationships.subscription.data.id),
        ids.slice(0, 2),
      );
      const next = await service.client.get(first.body.links.next.replace(service.baseUrl, ''));
      assert.deepEqual(
        next.body.data.map((d: any) => d.relationships.subscription.data.id),
        ids.slice(2),
      );
      assert.equal(next.body.links.next, undefined);
    });

    it('is empty a hundred years out for terms that end', async () => {
      const { userId, postalCode } = await readerAt();
      await createPrintSubscription(service.client, userId);
      const response = await run(dateIn(36_525), postalCode);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.data, []);
    });

    it('needs filter[date], a calendar date: 400 without it or with one that is not', async () => {
      const missing = onlyError(await service.client.get('/deliveries'), 400);
      assert.equal(missing.source.parameter, 'filter[date]');
      for (const date of ['2027-02-29', 'today', '2026-3-1']) {
        assert.equal(
          onlyError(await service.client.get(`/deliveries?filter[date]=${date}`), 400).source.parameter,
          'filter[date]',
        );
      }
    });
  });

  describe('GET /reports/draw', () => {
    it("counts the run's copies by product and by postal code", async () => {
      const product = await createPrintProduct(service.client);
      const { userId, postalCode } = await readerAt();
      await createPrintSubscription(service.client, userId, {}, product);
      await createPrintSubscription(service.client, userId, {}, product);
      await createPrintSubscription(service.client, userId);
      const response = await service.client.get(`/reports/draw?filter[date]=${dateIn(4)}`);
      assert.equal(response.status, 200, response.text);
      const { data } = response.body;
      assert.equal(data.type, 'draw-reports');
      assert.equal(data.id, dateIn(4));
      assert.deepEqual(
        data.attributes.byProduct.find((p: any) => p.product === product),
        { product, copies: 2 },
      );
      assert.deepEqual(
        data.attributes.byPostalCode.find((p: any) => p.postalCode === postalCode),
        { postalCode, copies: 3 },
      );
      const sum = (list: { copies: number }[]) => list.reduce((n, e) => n + e.copies, 0);
      assert.equal(sum(data.attributes.byProduct), data.attributes.copies);
      assert.equal(sum(data.attributes.byPostalCode), data.attributes.copies);
    });

    it('needs filter[date]', async () => {
      assert.equal(onlyError(await service.client.get('/reports/draw'), 400).source.parameter, 'filter[date]');
    });
  });
});

// Which counts a route answers from is the route's rule, the same over any store.
describe('GET /reports/draw with REPORT_MAX_AGE_SECONDS', () => {
  let service: Service;
  before(async () => {
    service = await startService('SQLite', { reportMaxAgeSeconds: 3600 });
  });
  after(() => service.close());

  const copiesAt = async (date: string, postalCode: string) => {
    const response = await service.client.get(`/reports/draw?filter[date]=${date}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.attributes.byPostalCode.find((p: any) => p.postalCode === postalCode)?.copies ?? 0;
  };

  it("answers a date's draw from what it last counted for that date, and counts another date afresh", async () => {
    const postalCode = randomUUID().slice(0, 12);
    const address = { streetAddress: '1 Print Lane', addressLocality: 'Inkton', addressCountry: 'GB', postalCode };
    assert.equal(await copiesAt(dateIn(20), postalCode), 0);
    await createPrintSubscription(service.client, await createUser(service.client, { address }));
    assert.equal(await copiesAt(dateIn(20), postalCode), 0, 'the kept count of that date');
    assert.equal(await copiesAt(dateIn(21), postalCode), 1, 'a date not counted yet');
  });
});
