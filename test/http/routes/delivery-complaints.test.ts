/**
 * Delivery complaints, through the API on every store: only of a delivery the subscription had,
 * one per date, a repeat when another came in the days before; `extend` moves the term on by a
 * delivery day, `redeliver` puts the subscription on the next open run once more, marked.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { WEEKDAYS } from '../../../src/domain/delivery-days.js';
import { DEFAULT_PRINT_SETTINGS } from '../../../src/domain/print.js';
import { DEFAULT_CALENDAR, firstOpenDate, formatDate } from '../../../src/domain/publication.js';
import { AUDIT, createSubscription, createUser, onlyError } from '../../support/fixtures.js';
import { createPrintSubscription, dateIn, midnightOf, nextWeekday, today } from '../../support/print.js';
import { forEachStore } from '../../support/stores.js';
import { startService, type Service } from '../../support/service.js';

const complaint = (deliveryDate: unknown, attributes: Record<string, unknown> = {}) => ({
  data: { type: 'delivery-complaints', attributes: { deliveryDate, reason: 'missed', ...attributes } },
});

/** The first date still open by its cut-off, as the test services (UTC, 19:00 the day before) have it. */
const firstOpen = () => formatDate(firstOpenDate(Math.floor(Date.now() / 1000), DEFAULT_CALENDAR));

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  /** A reader at a postal code of their own with a print subscription, and its complaints' path. */
  async function printReader(attributes: Record<string, unknown> = {}) {
    const postalCode = randomUUID().slice(0, 12);
    const userId = await createUser(service.client, { address: { streetAddress: '1 Print Lane', postalCode } });
    const subscriptionId = await createPrintSubscription(service.client, userId, attributes);
    const path = `/users/${userId}/subscriptions/${subscriptionId}`;
    return { userId, subscriptionId, path, complaints: `${path}/delivery-complaints`, postalCode };
  }

  const dateEndedOf = async (path: string) => (await service.client.get(path)).body.data.attributes.dateEnded;

  describe('POST …/delivery-complaints', () => {
    it('records a complaint of a delivery, with no remedy by default, and GET reads it back', async () => {
      const { subscriptionId, path, complaints } = await printReader();
      const before = await dateEndedOf(path);
      const response = await service.client.post(complaints, complaint(dateIn(-2), { reason: 'wrong-address' }));
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.equal(response.headers.get('location'), data.links.self);
      assert.deepEqual(data.attributes, {
        deliveryDate: dateIn(-2),
        reason: 'wrong-address',
        remedy: 'none',
        repeat: false,
        redeliveryDate: null,
      });
      assert.deepEqual(data.relationships.subscription.data, { type: 'subscriptions', id: subscriptionId });
      const read = await service.client.get(data.links.self.replace(service.baseUrl, ''));
      assert.deepEqual(read.body.data, data);
      assert.equal(await dateEndedOf(path), before);
      assert.equal((await service.client.post(complaints, complaint(dateIn(0)))).status, 201, 'today');
    });

    it('refuses a date that was no delivery (future, before the start, after the end, not a delivery day, held) with NOT_A_DELIVERY', async () => {
      const { userId, subscriptionId, complaints } = await printReader({
        dateStarted: midnightOf(dateIn(-30)),
        dateEnded: midnightOf(dateIn(-10)),
      });
      await service.store.holds.create(
        userId,
        subscriptionId,
        (context) => ({
          values: {
            startDate: today() - 20,
            endDate: today() - 18,
            compensation: 'credit',
            deliveriesMissed: 3,
            extendedDays: 0,
          },
          dateEnded: context.terms.dateEnded,
        }),
        AUDIT,
      );
      for (const days of [1, -31, -10, -5, -20, -18]) {
        const error = onlyError(await service.client.post(complaints, complaint(dateIn(days))), 422);
        assert.equal(error.code, 'NOT_A_DELIVERY', `day ${days}`);
        assert.equal(error.source.pointer, '/data/attributes/deliveryDate');
      }
      for (const days of [-30, -21, -17, -11]) {
        assert.equal((await service.client.post(complaints, complaint(dateIn(days)))).status, 201, `day ${days}`);
      }
      // A Sunday paper was not delivered on a Monday.
      const sundays = await printReader({ deliveryDays: ['sunday'] });
      const monday = nextWeekday(0, -7);
      const error = onlyError(await service.client.post(sundays.complaints, complaint(monday)), 422);
      assert.equal(error.code, 'NOT_A_DELIVERY');
      assert.equal((await service.client.post(sundays.complaints, complaint(nextWeekday(6, -7)))).status, 201);
    });

    it('refuses dates that are not dates, and reasons and remedies that are none', async () => {
      const { complaints } = await printReader();
      for (const bad of [
        '2027-02-29',
        '2026-04-31',
        'yesterday',
        '2026-3-2',
        `${dateIn(-1)}T00:00:00Z`,
        20260302,
        null,
      ]) {
        const error = onlyError(await service.client.post(complaints, complaint(bad)), 422);
        assert.equal(error.source.pointer, '/data/attributes/deliveryDate', String(bad));
      }
      const reason = onlyError(await service.client.post(complaints, complaint(dateIn(-1), { reason: 'rude' })), 422);
      assert.equal(reason.source.pointer, '/data/attributes/reason');
      const remedy = onlyError(await service.client.post(complaints, complaint(dateIn(-1), { remedy: 'refund' })), 422);
      assert.equal(remedy.source.pointer, '/data/attributes/remedy');
      const repeat = onlyError(await service.client.post(complaints, complaint(dateIn(-1), { repeat: true })), 422);
      assert.equal(repeat.source.pointer, '/data/attributes/repeat');
    });

    it('refuses a complaint of a subscription that gives no print with NOT_PRINT', async () => {
      const userId = await createUser(service.client);
      const online = await createSubscription(service.client, userId, { resource: 'online', dateEnded: null });
      const error = onlyError(
        await service.client.post(
          `/users/${userId}/subscriptions/${online}/delivery-complaints`,
          complaint(dateIn(-1)),
        ),
        422,
      );
      assert.equal(error.code, 'NOT_PRINT');
    });

    it('refuses a second complaint of the same subscription and date with 409 COMPLAINT_EXISTS', async () => {
      const { complaints } = await printReader();
      assert.equal((await service.client.post(complaints, complaint(dateIn(-3)))).status, 201);
      const error = onlyError(await service.client.post(complaints, complaint(dateIn(-3), { reason: 'wet' })), 409);
      assert.equal(error.code, 'COMPLAINT_EXISTS');
      assert.equal(error.source.pointer, '/data/attributes/deliveryDate');
      const other = await printReader();
      assert.equal((await service.client.post(other.complaints, complaint(dateIn(-3)))).status, 201);
    });

    it('of five asked at once for the same date, makes exactly one', async () => {
      const { complaints } = await printReader();
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => service.client.post(complaints, complaint(dateIn(-4)))),
      );
      assert.deepEqual(responses.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
    });

    it('marks a repeat: another complaint for a date 14 days before, not 15', async () => {
      const { complaints } = await printReader();
      const repeats = [];
      for (const days of [-40, -25, -11]) {
        const response = await service.client.post(complaints, complaint(dateIn(days)));
        assert.equal(response.status, 201, response.text);
        repeats.push(response.body.data.attributes.repeat);
      }
      assert.deepEqual(repeats, [false, false, true]);
    });

    it('extend moves the term on by one delivery day, as subscription.updated', async () => {
      const { userId, path, complaints } = await printReader();
      const response = await service.client.post(complaints, complaint(dateIn(-1), { remedy: 'extend' }));
      assert.equal(response.status, 201, response.text);
      assert.equal(await dateEndedOf(path), midnightOf(dateIn(366)));
      const feed = await service.client.get(`/events?filter[user]=${userId}`);
      const types = feed.body.data.map((e: any) => `${e.attributes.eventType} ${e.attributes.changed.join(',')}`);
      assert.deepEqual(types.slice(2), [
        'delivery_complaint.created deliveryDate,reason,remedy',
        'subscription.updated dateEnded',
      ]);
    });

    it('refuses extend at the remedy when the term ends at the last instant written, and changes nothing', async () => {
      const { path, complaints } = await printReader({ dateEnded: '9999-12-31T23:59:59+00:00' });
      const response = await service.client.post(complaints, complaint(dateIn(-1), { remedy: 'extend' }));
      assert.equal(response.status, 422, response.text);
      assert.equal(response.body.errors[0].source.pointer, '/data/attributes/remedy');
      assert.equal(await dateEndedOf(path), '9999-12-31T23:59:59+00:00');
      assert.deepEqual((await service.client.get(complaints)).body.data, []);
    });

    it('answers 404 for a subscription of another user', async () => {
      const { subscriptionId } = await printReader();
      const other = await createUser(service.client);
      const path = `/users/${other}/subscriptions/${subscriptionId}/delivery-complaints`;
      assert.equal((await service.client.post(path, complaint(dateIn(-1)))).status, 404);
      assert.equal((await service.client.get(path)).status, 404);
    });
  });

  describe('redeliver', () => {
    const run = async (date: string, postalCode: string) =>
      (await service.client.get(`/deliveries?filter[date]=${date}&filter[postalCode]=${postalCode}`)).body.data;

    it('gives the next open run a copy more of the subscription, marked redelivery', async () => {
      const { subscriptionId, complaints, postalCode } = await printReader();
      const open = firstOpen();
      const [before] = await run(open, postalCode);
      assert.deepEqual([before.attributes.redelivery, before.attributes.copies], [false, 1]);
      const response = await service.client.post(complaints, complaint(dateIn(-1), { remedy: 'redeliver' }));
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.attributes.redeliveryDate, open);
      const after = await run(open, postalCode);
      assert.equal(after.length, 1, 'one row of the subscription');
      assert.equal(after[0].id, `${open}.${subscriptionId}`);
      assert.deepEqual([after[0].attributes.redelivery, after[0].attributes.copies], [true, 2]);
      const draw = (await service.client.get(`/reports/draw?filter[date]=${open}`)).body.data.attributes;
      assert.deepEqual(
        draw.byPostalCode.find((p: any) => p.postalCode === postalCode),
        { postalCode, copies: 2 },
      );
      const [later] = await run(
        formatDate(firstOpenDate(Math.floor(Date.now() / 1000), DEFAULT_CALENDAR) + 1),
        postalCode,
      );
      assert.deepEqual([later.attributes.redelivery, later.attributes.copies], [false, 1], 'the day after');
    });

    it('puts a subscription not delivered on that date in its run, for the redelivery alone', async () => {
      const open = firstOpen();
      // Delivered one weekday only, the day after the open date's: complained of last week.
      const weekday = (((((Date.parse(open) / 86_400_000 + 3) % 7) + 7) % 7) + 1) % 7;
      const { complaints, postalCode } = await printReader({ deliveryDays: [WEEKDAYS[weekday]] });
      assert.deepEqual(await run(open, postalCode), []);
      const response = await service.client.post(
        complaints,
        complaint(nextWeekday(weekday, -7), { remedy: 'redeliver' }),
      );
      assert.equal(response.status, 201, response.text);
      const [delivery] = await run(open, postalCode);
      assert.deepEqual([delivery.attributes.redelivery, delivery.attributes.copies], [true, 1]);
      const draw = (await service.client.get(`/reports/draw?filter[date]=${open}`)).body.data.attributes;
      assert.deepEqual(
        draw.byPostalCode.find((p: any) => p.postalCode === postalCode),
        { postalCode, copies: 1 },
      );
    });

    it('keeps a redelivery in its run when the subscription is moved to begin after that date', async () => {
      const open = firstOpen();
      const { subscriptionId, path, complaints, postalCode } = await printReader();
      const response = await service.client.post(complaints, complaint(dateIn(-1), { remedy: 'redeliver' }));
      assert.equal(response.status, 201, response.text);
      const later = midnightOf(dateIn(30));
      const moved = await service.client.patch(path, {
        data: { type: 'subscriptions', id: subscriptionId, attributes: { dateStarted: later } },
      });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.data.attributes.dateStarted, later);
      const [delivery] = await run(open, postalCode);
      assert.deepEqual(
        [delivery.id, delivery.attributes.redelivery, delivery.attributes.copies],
        [`${open}.${subscriptionId}`, true, 1],
      );
    });
  });

  describe('GET …/delivery-complaints', () => {
    it('lists the subscription’s complaints, paged by links.next', async () => {
      const { complaints } = await printReader();
      for (const days of [-3, -2, -1]) await service.client.post(complaints, complaint(dateIn(days)));
      const first = await service.client.get(`${complaints}?page[size]=2`);
      assert.equal(first.status, 200);
      assert.equal(first.body.data.length, 2);
      const next = await service.client.get(first.body.links.next.replace(service.baseUrl, ''));
      assert.deepEqual(
        next.body.data.map((c: any) => c.attributes.deliveryDate),
        [dateIn(-1)],
      );
      assert.equal(next.body.links.next, undefined);
    });
  });
});

forEachStore((kind) => {
  describe('COMPLAINT_MAX_AGE_DAYS', () => {
    let service: Service;
    before(async () => {
      service = await startService(kind, { print: { ...DEFAULT_PRINT_SETTINGS, complaintMaxAgeDays: 5 } });
    });
    after(() => service.close());

    it('takes a delivery of as many days ago, and refuses one a day older at deliveryDate, changing nothing', async () => {
      const userId = await createUser(service.client);
      const subscriptionId = await createPrintSubscription(service.client, userId);
      const complaints = `/users/${userId}/subscriptions/${subscriptionId}/delivery-complaints`;
      const old = await service.client.post(complaints, complaint(dateIn(-6)));
      assert.equal(onlyError(old, 422).source.pointer, '/data/attributes/deliveryDate');
      assert.deepEqual((await service.client.get(complaints)).body.data, []);
      assert.equal((await service.client.post(complaints, complaint(dateIn(-5)))).status, 201);
    });
  });
});
