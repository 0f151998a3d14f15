/**
 * The print run of a date to come, within two days, is kept once a page of it is asked for
 * (store/sql/kept-runs.ts), and its pages then read the kept rows. A kept run must send what
 * the subscriptions say after every kind of write that may change it: these tests build the run,
 * make each write through the API, and hold the page sent both to the kept rows and to the
 * deliveries the store reads from the subscriptions field by field.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { runOf } from '../../../src/domain/delivery.js';
import { WEEKDAYS, weekdayBit, weekdayOf } from '../../../src/domain/delivery-days.js';
import { nowInSeconds } from '../../../src/domain/dates.js';
import { DEFAULT_CALENDAR, firstOpenDate, formatDate } from '../../../src/domain/publication.js';
import { BUILD_CLAIM_SECONDS, BUILDING, KEPT, KEPT_AFTER_BEGINNING_SECONDS } from '../../../src/store/sql/kept-runs.js';
import { createUser } from '../../support/fixtures.js';
import {
  createPrintProduct,
  createPrintSubscription,
  dateIn,
  deliveryResource,
  midnightOf,
  today,
} from '../../support/print.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  /** The first date still open, to come and within two days. */
  const day = firstOpenDate(nowInSeconds(), DEFAULT_CALENDAR);
  const date = formatDate(day);
  const postalCode = `K ${randomUUID().slice(0, 8)}`;
  let product = '';
  let reader = '';
  let subscription = '';

  before(async () => {
    service = await startService(kind);
    product = await createPrintProduct(service.client);
    reader = await createUser(service.client, { address: { streetAddress: '1 Kept Row', postalCode } });
    subscription = await createPrintSubscription(service.client, reader);
    await createPrintSubscription(service.client, reader, {}, product);
    for (let i = 0; i < 3; i += 1) {
      const other = await createUser(service.client, { address: { streetAddress: `${i} Lane`, postalCode: `P${i}` } });
      await createPrintSubscription(service.client, other, {}, i === 0 ? product : undefined);
    }
    await keptNow();
  });
  after(() => service.close());

  /** An instant as the store keeps it. */
  const instant = (seconds: number) => (kind === 'SQLite' ? seconds : new Date(seconds * 1000));

  /** Writes to the database as another process would (the SQLite file's other connection). */
  async function write(text: string, params: unknown[]): Promise<void> {
    if (kind !== 'SQLite') {
      await service.sql(text, params);
      return;
    }
    const other = new Database(service.databaseUrl.slice('sqlite:'.length));
    try {
      other.prepare(text).run(...params);
    } finally {
      other.close();
    }
  }

  /** The state of a date's kept run, if it has one. */
  async function stateOf(on: number): Promise<number | undefined> {
    const [row] = await service.sql('SELECT state FROM kept_runs WHERE date = ?', [on]);
    return row === undefined ? undefined : Number(row.state);
  }

  /** Asks for a page of the run and waits until its run is kept. */
  async function keptNow(): Promise<void> {
    for (let tries = 0; (await stateOf(day)) !== KEPT; tries += 1) {
      assert.ok(tries < 500, 'the run was not kept within 5 s');
      assert.equal((await service.client.get(`/deliveries?filter[date]=${date}`)).status, 200);
      await sleep(10);
    }
  }

  /** The page sent for `query`, held to the kept rows and to the deliveries the subscriptions say. */
  async function sendsWhatTheSubscriptionsSay(
    query = '',
    page: { limit: number; [filter: string]: unknown } = { limit: 101 },
  ) {
    assert.equal(await stateOf(day), KEPT, 'the run is kept');
    const response = await service.client.get(`/deliveries?filter[date]=${date}${query}`);
    assert.equal(response.status, 200, response.text);
    const sent = response.text.slice(response.text.indexOf(',"data":[') + ',"data":'.length, -1);
    const deliveries = await service.store.deliveries.list(runOf(day, 'UTC'), page);
    const expected = deliveries.slice(0, page.limit - 1).map((delivery) => deliveryResource(date, delivery));
    assert.equal(sent, JSON.stringify(expected));
    return expected;
  }

  /** The kept rows of the date, as a page of them all would send them. */
  async function keptRows(): Promise<string> {
    const rows = await service.sql('SELECT json FROM kept_deliveries WHERE date = ? ORDER BY subscription_id', [day]);
    return `[${rows.map((row) => row.json).join(',')}]`;
  }

  /** The subscriptions of the reader's in the run. */
  async function readersDeliveries(): Promise<string[]> {
    const sent = await sendsWhatTheSubscriptionsSay(`&filter[postalCode]=${encodeURIComponent(postalCode)}`, {
      limit: 101,
      postalCode,
    });
    return sent.map((delivery) => delivery.relationships.subscription.data.id);
  }

  it('sends the rows it keeps, which are what the subscriptions say', async () => {
    const sent = await sendsWhatTheSubscriptionsSay();
    assert.equal(sent.length, 5);
    assert.equal(await keptRows(), JSON.stringify(sent));
  });

  it('pages and filters the kept rows as it does the subscriptions', async () => {
    const [, second] = await sendsWhatTheSubscriptionsSay('&page[size]=2', { limit: 3 });
    const afterId = second?.relationships.subscription.data.id ?? assert.fail('no second delivery');
    await sendsWhatTheSubscriptionsSay(`&page[size]=2&page[after]=${afterId}`, { afterId, limit: 3 });
    assert.equal(
      (await sendsWhatTheSubscriptionsSay(`&filter[product]=${product}`, { product, limit: 101 })).length,
      2,
    );
    assert.equal((await readersDeliveries()).length, 2);
  });

  it('keeps a subscription created, its term moved past the date, and its days narrowed', async () => {
    const added = await createPrintSubscription(service.client, reader);
    assert.ok((await readersDeliveries()).includes(added));
    const path = `/users/${reader}/subscriptions/${added}`;
    const ended = await service.client.patch(path, {
      data: { type: 'subscriptions', id: added, attributes: { dateEnded: midnightOf(dateIn(-1)) } },
    });
    assert.equal(ended.status, 200, ended.text);
    assert.ok(!(await readersDeliveries()).includes(added));
    const other = WEEKDAYS.filter((_, i) => i !== weekdayOf(day));
    const narrowed = await service.client.patch(path, {
      data: {
        type: 'subscriptions',
        id: added,
        attributes: { dateEnded: midnightOf(dateIn(30)), deliveryDays: other },
      },
    });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.ok(!(await readersDeliveries()).includes(added));
  });

  it('keeps a subscription expired and one deleted out', async () => {
    const expired = await createPrintSubscription(service.client, reader);
    const deleted = await createPrintSubscription(service.client, reader);
    assert.equal((await service.client.put(`/users/${reader}/subscriptions/${expired}/expire`)).status, 200);
    assert.equal((await service.client.delete(`/users/${reader}/subscriptions/${deleted}`)).status, 204);
    const delivered = await readersDeliveries();
    assert.ok(!delivered.includes(expired) && !delivered.includes(deleted));
  });

  it('keeps a hold placed on the date, and the delivery again once it is withdrawn', async () => {
    const holds = `/users/${reader}/subscriptions/${subscription}/holds`;
    // Credited: the hold leaves the subscription's term alone, so only the hold is written.
    const placed = await service.client.post(holds, {
      data: { type: 'holds', attributes: { startDate: date, endDate: date, compensation: 'credit' } },
    });
    assert.equal(placed.status, 201, placed.text);
    assert.ok(!(await readersDeliveries()).includes(subscription));
    assert.equal((await service.client.delete(`${holds}/${placed.body.data.id}`)).status, 204);
    assert.ok((await readersDeliveries()).includes(subscription));
  });

  it('keeps a temporary address added, moved off the date, and removed', async () => {
    const addresses = `/users/${reader}/temporary-addresses`;
    const away = { streetAddress: 'Holiday Flat', postalCode: 'AWAY 1' };
    const added = await service.client.post(addresses, {
      data: { type: 'temporary-addresses', attributes: { startDate: date, endDate: date, address: away } },
    });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(await readersDeliveries(), []);
    const sentAway = await sendsWhatTheSubscriptionsSay('&filter[postalCode]=AWAY%201', {
      limit: 101,
      postalCode: 'AWAY 1',
    });
    assert.equal(sentAway.length, 2);
    const id = added.body.data.id;
    const later = formatDate(day + 3);
    const moved = await service.client.patch(`${addresses}/${id}`, {
      data: { type: 'temporary-addresses', id, attributes: { startDate: later, endDate: later } },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal((await readersDeliveries()).length, 2);
    assert.equal((await service.client.delete(`${addresses}/${id}`)).status, 204);
    assert.equal((await readersDeliveries()).length, 2);
  });

  it('keeps a redelivery on the date, with its copy', async () => {
    const complained = await service.client.post(`/users/${reader}/subscriptions/${subscription}/delivery-complaints`, {
      data: {
        type: 'delivery-complaints',
        attributes: { deliveryDate: dateIn(-1), reason: 'wet', remedy: 'redeliver' },
      },
    });
    assert.equal(complained.status, 201, complained.text);
    assert.equal(complained.body.data.attributes.redeliveryDate, date);
    const redelivered = (await sendsWhatTheSubscriptionsSay()).find(
      (delivery) => delivery.relationships.subscription.data.id === subscription,
    );
    assert.deepEqual([redelivered?.attributes.redelivery, redelivered?.attributes.copies], [true, 2]);
  });

  it("keeps a reader's address changed", async () => {
    const moved = await service.client.patch(`/users/${reader}`, {
      data: { type: 'users', id: reader, attributes: { address: { streetAddress: '2 Kept Row', postalCode } } },
    });
    assert.equal(moved.status, 200, moved.text);
    const sent = await sendsWhatTheSubscriptionsSay();
    assert.ok(sent.some((delivery) => delivery.attributes.address.streetAddress === '2 Kept Row'));
  });

  it("keeps a reader's deliveries right when their subscriptions are written at once", async () => {
    const busy = await createUser(service.client, { address: { streetAddress: 'Busy Road', postalCode } });
    const first = await Promise.all(Array.from({ length: 10 }, () => createPrintSubscription(service.client, busy)));
    await Promise.all([
      ...first.map(async (id) =>
        assert.equal((await service.client.delete(`/users/${busy}/subscriptions/${id}`)).status, 204),
      ),
      ...Array.from({ length: 10 }, () => createPrintSubscription(service.client, busy)),
    ]);
    const delivered = (await sendsWhatTheSubscriptionsSay()).filter(
      (delivery) => delivery.relationships.user.data.id === busy,
    );
    assert.equal(delivered.length, 10);
    assert.equal(await keptRows(), JSON.stringify(await sendsWhatTheSubscriptionsSay()));
  });

  it('keeps nothing of a reader erased', async () => {
    const erased = await createUser(service.client, { address: { streetAddress: 'Gone Street', postalCode } });
    await createPrintSubscription(service.client, erased);
    assert.equal((await service.client.delete(`/users/${erased}`)).status, 204);
    await sendsWhatTheSubscriptionsSay();
    assert.deepEqual(await service.sql('SELECT date FROM kept_deliveries WHERE user_id = ?', [erased]), []);
  });

  it("drops the run when a product's days change, and keeps it again cleared of the old rows", async () => {
    const other = WEEKDAYS.filter((_, i) => i !== weekdayOf(day));
    const changed = await service.client.patch(`/products/${product}`, {
      data: { type: 'products', id: product, attributes: { deliveryDays: other } },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(await stateOf(day), undefined);
    await keptNow();
    const sent = await sendsWhatTheSubscriptionsSay();
    assert.ok(sent.every((delivery) => delivery.relationships.product.data?.id !== product));
    assert.equal(await keptRows(), JSON.stringify(sent));
  });

  it('keeps no run of a date begun, nor of one more than two days ahead', async () => {
    for (const on of [dateIn(0), dateIn(3)]) {
      assert.equal((await service.client.get(`/deliveries?filter[date]=${on}`)).status, 200);
    }
    await sleep(50);
    assert.deepEqual(await service.sql('SELECT date FROM kept_runs WHERE date <> ?', [day]), []);
  });

  it('keeps a run until an hour after its date begins, by the database clock, and not after', async () => {
    const yesterday = today() - 1;
    const keptSince = async (begun: number) => {
      await write(
        `INSERT INTO kept_runs (date, date_text, starts_at, ends_at, weekday_bit, state, claimed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (date) DO UPDATE SET starts_at = excluded.starts_at`,
        [
          yesterday,
          formatDate(yesterday),
          instant(begun),
          instant(begun + 86_400),
          weekdayBit(yesterday),
          KEPT,
          instant(begun),
        ],
      );
      const added = await createPrintSubscription(service.client, reader);
      const rows = await service.sql('SELECT 1 FROM kept_deliveries WHERE date = ? AND subscription_id = ?', [
        yesterday,
        added,
      ]);
      return rows.length > 0;
    };
    try {
      assert.equal(await keptSince(nowInSeconds() - KEPT_AFTER_BEGINNING_SECONDS + 60), true);
      assert.equal(await keptSince(nowInSeconds() - KEPT_AFTER_BEGINNING_SECONDS - 60), false);
    } finally {
      await write('DELETE FROM kept_runs WHERE date = ?', [yesterday]);
    }
  });

  it('leaves a run another builder has claimed to it, and takes over a claim that lapsed', async () => {
    // The other of the next two dates, also one to keep.
    const later = [today() + 1, today() + 2].find((next) => next !== day) as number;
    const { startsAt, endsAt } = runOf(later, 'UTC');
    const claim = (at: number) =>
      write(
        `INSERT INTO kept_runs (date, date_text, starts_at, ends_at, weekday_bit, state, claimed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (date) DO UPDATE SET claimed_at = excluded.claimed_at`,
        [later, formatDate(later), instant(startsAt), instant(endsAt), weekdayBit(later), BUILDING, instant(at)],
      );
    await claim(nowInSeconds());
    assert.equal((await service.client.get(`/deliveries?filter[date]=${formatDate(later)}`)).status, 200);
    await sleep(50);
    assert.equal(await stateOf(later), BUILDING);
    await claim(nowInSeconds() - BUILD_CLAIM_SECONDS);
    for (let tries = 0; (await stateOf(later)) !== KEPT; tries += 1) {
      assert.ok(tries < 500, 'the lapsed claim was not taken over within 5 s');
      await service.client.get(`/deliveries?filter[date]=${formatDate(later)}`);
      await sleep(10);
    }
  });
});
