/**
 * Holds, through the API on every store: made only for dates still open by their cut-off, never
 * overlapping, within the yearly allowance; counted in delivery days, and made good by moving the
 * term on by as many; withdrawn before they start, ended early after.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, onlyError } from '../../support/fixtures.js';
import {
  createPrintProduct,
  assertChangesMeta,
  createPrintSubscription,
  createStartedHold,
  dateIn,
  midnightOf,
  daysAfter,
  nextWeekday,
  today,
} from '../../support/print.js';
import { DEFAULT_PRINT_SETTINGS } from '../../../src/domain/print.js';
import { forEachStore } from '../../support/stores.js';
import { startService, type Service } from '../../support/service.js';

const holdDocument = (startDate: string, endDate: string, attributes: Record<string, unknown> = {}) => ({
  data: { type: 'holds', attributes: { startDate, endDate, ...attributes } },
});

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  /** A reader with a print subscription (every day, to a year from now unless told), and its holds' path. */
  async function printReader(attributes: Record<string, unknown> = {}, product?: string) {
    const userId = await createUser(service.client);
    const subscriptionId = await createPrintSubscription(service.client, userId, attributes, product);
    const path = `/users/${userId}/subscriptions/${subscriptionId}`;
    return { userId, subscriptionId, path, holds: `${path}/holds` };
  }

  const dateEndedOf = async (path: string) => (await service.client.get(path)).body.data.attributes.dateEnded;

  describe('POST …/holds', () => {
    it('holds the dates, counts the delivery days missed, and moves the term on by as many', async () => {
      const { path, holds } = await printReader();
      const response = await service.client.post(holds, holdDocument(dateIn(10), dateIn(16)));
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.equal(response.headers.get('location'), data.links.self);
      assert.deepEqual(data.attributes, {
        startDate: dateIn(10),
        endDate: dateIn(16),
        compensation: 'extend',
        deliveriesMissed: 7,
        status: 'scheduled',
      });
      assert.deepEqual(data.relationships.subscription.data, { type: 'subscriptions', id: path.split('/').at(-1) });
      assert.equal(await dateEndedOf(path), midnightOf(dateIn(372)));
    });

    it("counts only the subscription's delivery days: two weeks of a weekend paper miss four", async () => {
      const weekend = await createPrintProduct(service.client, { deliveryDays: ['saturday', 'sunday'] });
      const { holds } = await printReader({}, weekend);
      const monday = nextWeekday(0, 5);
      const sunday = daysAfter(monday, 13);
      const response = await service.client.post(holds, holdDocument(monday, sunday));
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.attributes.deliveriesMissed, 4);
    });

    it('leaves the term as it is with credit or donate, and an open-ended term always', async () => {
      for (const compensation of ['credit', 'donate']) {
        const { path, holds } = await printReader();
        const before = await dateEndedOf(path);
        const response = await service.client.post(holds, holdDocument(dateIn(5), dateIn(6), { compensation }));
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.data.attributes.compensation, compensation);
        assert.equal(await dateEndedOf(path), before);
      }
      const { path, holds } = await printReader({ dateEnded: null });
      assert.equal((await service.client.post(holds, holdDocument(dateIn(5), dateIn(6)))).status, 201);
      assert.equal(await dateEndedOf(path), null);
    });

    it('refuses a start past its cut-off with PAST_CUTOFF at startDate, naming the first open date', async () => {
      const { holds } = await printReader();
      for (const start of [dateIn(0), dateIn(-3)]) {
        const error = onlyError(await service.client.post(holds, holdDocument(start, dateIn(3))), 422);
        assert.equal(error.code, 'PAST_CUTOFF');
        assert.equal(error.source.pointer, '/data/attributes/startDate');
        assert.match(error.detail, /first date still open to changes is \d{4}-\d{2}-\d{2}/);
      }
    });

    it('refuses dates that are not dates, 29 February of a common year among them', async () => {
      const { holds } = await printReader();
      for (const startDate of [
        '2027-02-29',
        '2026-13-01',
        'tomorrow',
        '2026-3-2',
        `${dateIn(5)}T00:00:00Z`,
        20260302,
      ]) {
        const error = onlyError(await service.client.post(holds, holdDocument(startDate as string, dateIn(6))), 422);
        assert.equal(error.source.pointer, '/data/attributes/startDate', String(startDate));
      }
    });

    it('refuses an endDate before its startDate, and a hold with neither', async () => {
      const { holds } = await printReader();
      const error = onlyError(await service.client.post(holds, holdDocument(dateIn(6), dateIn(5))), 422);
      assert.equal(error.source.pointer, '/data/attributes/endDate');
      const missing = await service.client.post(holds, { data: { type: 'holds', attributes: {} } });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.errors.map((e: any) => e.source.pointer).sort(), [
        '/data/attributes/endDate',
        '/data/attributes/startDate',
      ]);
    });

    it('refuses a hold on a subscription that gives no print with NOT_PRINT', async () => {
      const userId = await createUser(service.client);
      const online = await createSubscription(service.client, userId, { resource: 'online', dateEnded: null });
      const error = onlyError(
        await service.client.post(`/users/${userId}/subscriptions/${online}/holds`, holdDocument(dateIn(5), dateIn(6))),
        422,
      );
      assert.equal(error.code, 'NOT_PRINT');
    });

    it('refuses a hold overlapping another by a day with HOLD_OVERLAP, and takes one beside it', async () => {
      const { holds } = await printReader();
      assert.equal((await service.client.post(holds, holdDocument(dateIn(10), dateIn(12)))).status, 201);
      const error = onlyError(await service.client.post(holds, holdDocument(dateIn(12), dateIn(13))), 409);
      assert.equal(error.code, 'HOLD_OVERLAP');
      assert.equal((await service.client.post(holds, holdDocument(dateIn(13), dateIn(14)))).status, 201);
    });

    it('takes holds up to the allowance of 35 delivery days a year, and not one more', async () => {
      // Early in a year, so that every date held falls in the same one.
      const year = new Date((today() + 400) * 86_400_000).getUTCFullYear();
      const { holds } = await printReader({ dateEnded: null });
      assert.equal((await service.client.post(holds, holdDocument(`${year}-02-01`, `${year}-02-28`))).status, 201);
      const error = onlyError(await service.client.post(holds, holdDocument(`${year}-03-01`, `${year}-03-08`)), 422);
      assert.equal(error.code, 'HOLD_ALLOWANCE_EXCEEDED');
      assert.match(error.detail, new RegExp(`36 delivery days in ${year}`));
      assert.equal((await service.client.post(holds, holdDocument(`${year}-03-01`, `${year}-03-07`))).status, 201);
    });

    it('refuses a hold of ten years as past the allowance', async () => {
      const { holds } = await printReader({ dateEnded: null });
      const error = onlyError(await service.client.post(holds, holdDocument(dateIn(5), dateIn(5 + 3652))), 422);
      assert.equal(error.code, 'HOLD_ALLOWANCE_EXCEEDED');
    });

    it('of 50 asked at once, two for each date, makes exactly one for each date', async () => {
      const { holds } = await printReader({ dateEnded: null });
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const date = dateIn(400 + Math.floor(i / 2));
          return service.client.post(holds, holdDocument(date, date));
        }),
      );
      const statuses = responses.map((r) => r.status).sort();
      assert.deepEqual(
        statuses,
        [...Array(25).fill(201), ...Array(25).fill(409)],
        responses
          .map((r) => r.text)
          .join('\n')
          .slice(0, 2000),
      );
      const listed = await service.client.get(`${holds}?page[size]=100`);
      const dates = listed.body.data.map((h: any) => h.attributes.startDate).sort();
      assert.deepEqual(
        dates,
        Array.from({ length: 25 }, (_, i) => dateIn(400 + i)),
      );
    });

    it('answers 404 for a subscription of another user', async () => {
      const { subscriptionId } = await printReader();
      const other = await createUser(service.client);
      const response = await service.client.post(
        `/users/${other}/subscriptions/${subscriptionId}/holds`,
        holdDocument(dateIn(5), dateIn(6)),
      );
      assert.equal(response.status, 404);
    });
  });

  describe('DELETE …/holds/{id}', () => {
    it('withdraws a hold not yet started, and gives the term back the days it added', async () => {
      const { path, holds } = await printReader();
      const before = await dateEndedOf(path);
      const created = await service.client.post(holds, holdDocument(dateIn(10), dateIn(12)));
      const self = created.body.data.links.self.replace(service.baseUrl, '');
      assert.notEqual(await dateEndedOf(path), before);
      assert.equal((await service.client.delete(self)).status, 204);
      assert.equal((await service.client.get(self)).body.data.attributes.status, 'withdrawn');
      assert.equal(await dateEndedOf(path), before);
      assert.equal((await service.client.delete(self)).status, 204, 'withdrawing again changes nothing');
      assert.equal(await dateEndedOf(path), before);
    });

    it('frees its dates for another hold', async () => {
      const { holds } = await printReader();
      const created = await service.client.post(holds, holdDocument(dateIn(10), dateIn(12)));
      await service.client.delete(created.body.data.links.self.replace(service.baseUrl, ''));
      assert.equal((await service.client.post(holds, holdDocument(dateIn(11), dateIn(11)))).status, 201);
    });

    it('refuses to withdraw a hold that has started (ALREADY_STARTED), which PATCH endDate ends early', async () => {
      const { userId, subscriptionId, path, holds } = await printReader();
      const started = { id: await createStartedHold(service.store, userId, subscriptionId) };
      const self = `${holds}/${started.id}`;
      assert.equal(onlyError(await service.client.delete(self), 409).code, 'ALREADY_STARTED');
      const ended = await service.client.patch(self, {
        data: { type: 'holds', id: started.id, attributes: { endDate: dateIn(5) } },
      });
      assert.equal(ended.status, 200, ended.text);
      assert.deepEqual([ended.body.data.attributes.status, ended.body.data.attributes.deliveriesMissed], ['active', 8]);
      const moved = await service.client.patch(self, {
        data: { type: 'holds', id: started.id, attributes: { startDate: dateIn(3) } },
      });
      assert.equal(onlyError(moved, 409).code, 'ALREADY_STARTED');
      const closed = await service.client.patch(self, {
        data: { type: 'holds', id: started.id, attributes: { endDate: dateIn(-1) } },
      });
      assert.equal(onlyError(closed, 422).code, 'PAST_CUTOFF');
      assert.equal(await dateEndedOf(path), midnightOf(dateIn(365)));
    });
  });

  describe('PATCH …/holds/{id}', () => {
    it('moves its dates, recounting what it misses and the term with it', async () => {
      const { path, holds } = await printReader();
      const created = await service.client.post(holds, holdDocument(dateIn(10), dateIn(16)));
      const { id } = created.body.data;
      const changed = await service.client.patch(`${holds}/${id}`, {
        data: { type: 'holds', id, attributes: { endDate: dateIn(11) } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.attributes.deliveriesMissed, 2);
      assert.equal(await dateEndedOf(path), midnightOf(dateIn(367)));
    });

    it('refuses any change to a withdrawn hold with HOLD_WITHDRAWN', async () => {
      const { holds } = await printReader();
      const { id } = (await service.client.post(holds, holdDocument(dateIn(10), dateIn(11)))).body.data;
      await service.client.delete(`${holds}/${id}`);
      const response = await service.client.patch(`${holds}/${id}`, {
        data: { type: 'holds', id, attributes: { endDate: dateIn(12) } },
      });
      assert.equal(onlyError(response, 409).code, 'HOLD_WITHDRAWN');
    });
  });

  describe('GET …/holds', () => {
    it('lists the holds of the subscription, withdrawn ones too, paged by links.next', async () => {
      const { holds } = await printReader();
      for (const day of [10, 20, 30]) await service.client.post(holds, holdDocument(dateIn(day), dateIn(day)));
      const first = await service.client.get(`${holds}?page[size]=2`);
      assert.equal(first.status, 200);
      assert.equal(first.body.data.length, 2);
      const next = await service.client.get(first.body.links.next.replace(service.baseUrl, ''));
      assert.deepEqual(
        next.body.data.map((h: any) => h.attributes.startDate),
        [dateIn(30)],
      );
      assert.equal(next.body.links.next, undefined);
    });

    it('states in meta the first date still open, which a hold may start on, and its cut-off, on every page', async () => {
      const { holds } = await printReader();
      for (const day of [10, 20]) await service.client.post(holds, holdDocument(dateIn(day), dateIn(day)));
      const first = await service.client.get(`${holds}?page[size]=1`);
      assertChangesMeta(first.body.meta);
      const next = await service.client.get(first.body.links.next.replace(service.baseUrl, ''));
      assertChangesMeta(next.body.meta);
      const { firstOpenDate } = first.body.meta;
      const closed = await service.client.post(holds, holdDocument(daysAfter(firstOpenDate, -1), dateIn(4)));
      assert.equal(onlyError(closed, 422).code, 'PAST_CUTOFF');
      const made = await service.client.post(holds, holdDocument(firstOpenDate, dateIn(4)));
      assert.equal(made.status, 201, made.text);
    });

    it("states the cut-off in the publisher's zone: 06:00 two days before, in Auckland", async () => {
      const calendar = { zone: 'Pacific/Auckland', cutoff: { days: -2, second: 6 * 3600 } };
      const auckland = await startService(kind, { print: { ...DEFAULT_PRINT_SETTINGS, calendar } });
      try {
        const userId = await createUser(auckland.client);
        const subscriptionId = await createPrintSubscription(auckland.client, userId);
        const list = await auckland.client.get(`/users/${userId}/subscriptions/${subscriptionId}/holds`);
        assert.equal(list.status, 200, list.text);
        assertChangesMeta(list.body.meta, calendar.zone, calendar.cutoff);
      } finally {
        await auckland.close();
      }
    });
  });

  describe('events', () => {
    it('are hold.created, hold.updated and hold.withdrawn, and subscription.updated when the term moves', async () => {
      const { userId, holds } = await printReader();
      const { id } = (await service.client.post(holds, holdDocument(dateIn(10), dateIn(11)))).body.data;
      await service.client.patch(`${holds}/${id}`, {
        data: { type: 'holds', id, attributes: { endDate: dateIn(12) } },
      });
      await service.client.delete(`${holds}/${id}`);
      const feed = await service.client.get(`/events?filter[user]=${userId}`);
      const types = feed.body.data.map((e: any) => `${e.attributes.eventType} ${e.attributes.changed.join(',')}`);
      assert.deepEqual(types.slice(2), [
        'hold.created endDate,startDate',
        'subscription.updated dateEnded',
        'hold.updated endDate',
        'subscription.updated dateEnded',
        'hold.withdrawn ',
        'subscription.updated dateEnded',
      ]);
    });
  });
});
