/**
 * The store contract of seats and licence usage (part of `storeContract`): a seat is given only as
 * its rules allow, with the licence locked so that concurrent grabs of the last seat give it once;
 * its holder's check finds the licence while it is active, from the next check of a store that
 * had no seat holder; it goes with the seat, the licence, the owner and the holder. Usage counts
 * add up per licence, month and way, and a count of a licence that is no more is dropped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DomainFailure } from '../../src/domain/failures.js';
import type { SubscriptionValues } from '../../src/domain/subscription.js';
import type { Store, StoreOptions } from '../../src/store/port.js';
import { AUDIT, subscriptionValues } from '../support/fixtures.js';

let counter = 0;

const refusal = (code: string) => (error: unknown) => error instanceof DomainFailure && error.code === code;

export function seatContract(open: (options?: StoreOptions) => Promise<Store> | Store): void {
  describe('seats and licence usage', () => {
    let store: Store;
    before(async () => {
      store = await open();
    });
    after(() => store.close());

    const now = Math.floor(Date.now() / 1000);

    async function reader(on: Store = store) {
      const email = `seat-${process.pid}-${++counter}@seats.example`;
      return (await on.users.create({ email, passwordHash: null, fields: { familyName: 'R' }, newsletters: [] }, AUDIT))
        .id;
    }

    async function licence(values: Partial<SubscriptionValues> = {}, on: Store = store) {
      const owner = await reader(on);
      const created = await on.subscriptions.create(
        owner,
        subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60, seats: 2, ...values }),
        AUDIT,
      );
      assert.ok(created);
      return { owner, id: created.id };
    }

    const bySeat = async (userId: string, on: Store = store) =>
      ((await on.siteLicences.readerSourcesOf(userId, now))?.bySeat ?? []).map((l) => l.id).sort();

    it('gives a seat as its rules allow, and its holder finds the licence while it is active', async () => {
      const { owner, id } = await licence();
      const [first, second, third] = [await reader(), await reader(), await reader()];
      const seat = await store.seats.create(owner, id, first, AUDIT);
      assert.ok(seat);
      assert.deepEqual(
        { userId: seat.userId, subscriptionId: seat.subscriptionId, holderId: seat.holderId },
        { userId: owner, subscriptionId: id, holderId: first },
      );
      assert.deepEqual(await store.seats.get(owner, id, seat.id), seat);
      await assert.rejects(store.seats.create(owner, id, first, AUDIT), refusal('SEAT_TAKEN'));
      await assert.rejects(store.seats.create(owner, id, '999999999', AUDIT), refusal('UNKNOWN_REFERENCE'));
      await store.seats.create(owner, id, second, AUDIT);
      await assert.rejects(store.seats.create(owner, id, third, AUDIT), refusal('SEATS_EXHAUSTED'));
      assert.equal(await store.seats.create(owner, '999999999', third, AUDIT), undefined);
      assert.deepEqual(await bySeat(first), [id]);
      assert.deepEqual(await bySeat(third), []);
      await store.subscriptions.expire(owner, id, now - 1, AUDIT);
      assert.deepEqual(await bySeat(first), []);
    });

    it('refuses a seat of a licence without seats', async () => {
      const { owner, id } = await licence({ seats: null });
      await assert.rejects(store.seats.create(owner, id, await reader(), AUDIT), refusal('NO_SEATS'));
    });

    it('gives the last seat to one of many asking at once', async () => {
      const { owner, id } = await licence({ seats: 1 });
      const readers = await Promise.all(Array.from({ length: 20 }, () => reader()));
      const outcomes = await Promise.allSettled(readers.map((r) => store.seats.create(owner, id, r, AUDIT)));
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      for (const o of outcomes) if (o.status === 'rejected') assert.ok(refusal('SEATS_EXHAUSTED')(o.reason));
      assert.equal((await store.seats.list(owner, id, { limit: 100 }))?.length, 1);
    });

    it('refuses to lower the seats below those given', async () => {
      const { owner, id } = await licence({ seats: 2 });
      await store.seats.create(owner, id, await reader(), AUDIT);
      const lower = (seats: number | null) => store.subscriptions.update(owner, id, (c) => ({ ...c, seats }), AUDIT);
      await assert.rejects(lower(null), refusal('SEATS_GIVEN'));
      assert.equal((await lower(1))?.seats, 1);
    });

    it('takes a seat back, with its holder’s access', async () => {
      const { owner, id } = await licence();
      const holder = await reader();
      const seat = await store.seats.create(owner, id, holder, AUDIT);
      assert.ok(seat);
      assert.equal(await store.seats.delete(owner, id, seat.id, AUDIT), true);
      assert.equal(await store.seats.delete(owner, id, seat.id, AUDIT), false);
      assert.deepEqual(await bySeat(holder), []);
      assert.deepEqual(await store.seats.list(owner, id, { limit: 100 }), []);
    });

    it('forgets the seats of a deleted licence, an erased owner and an erased holder', async () => {
      const deleted = await licence();
      const erasedOwner = await licence();
      const kept = await licence();
      const holder = await reader();
      const erasedHolder = await reader();
      for (const l of [deleted, erasedOwner, kept]) await store.seats.create(l.owner, l.id, holder, AUDIT);
      await store.seats.create(kept.owner, kept.id, erasedHolder, AUDIT);
      assert.deepEqual(await bySeat(holder), [deleted.id, erasedOwner.id, kept.id].sort());
      assert.equal(await store.subscriptions.delete(deleted.owner, deleted.id, AUDIT), true);
      assert.equal(await store.users.delete(erasedOwner.owner, AUDIT), true);
      assert.equal(await store.users.delete(erasedHolder, AUDIT), true);
      assert.deepEqual(await bySeat(holder), [kept.id]);
      const holders = (await store.seats.list(kept.owner, kept.id, { limit: 100 }))?.map((s) => s.holderId);
      assert.deepEqual(holders, [holder]);
    });

    it('finds the first seat of a store that had no seat holder from its next check', async () => {
      const alone = await open();
      try {
        const { owner, id } = await licence({}, alone);
        const holder = await reader(alone);
        assert.deepEqual(await bySeat(holder, alone), []);
        await alone.seats.create(owner, id, holder, AUDIT);
        assert.deepEqual(await bySeat(holder, alone), [id]);
      } finally {
        await alone.close();
      }
    });

    it('adds usage per licence, month and way, and drops the counts of a licence that is no more', async () => {
      const { owner, id } = await licence();
      const gone = await licence();
      await store.subscriptions.delete(gone.owner, gone.id, AUDIT);
      const count = (month: string, via: 'ip' | 'seat', n: number) => ({
        userId: owner,
        subscriptionId: id,
        month,
        via,
        count: n,
      });
      await store.licenceUsage.add([
        count('2026-10', 'ip', 3),
        count('2026-11', 'seat', 1),
        { ...count('2026-11', 'ip', 9), userId: gone.owner, subscriptionId: gone.id },
      ]);
      await store.licenceUsage.add([count('2026-11', 'seat', 2), count('2026-11', 'ip', 4)]);
      assert.deepEqual(await store.licenceUsage.ofLicence(owner, id), [
        { month: '2026-10', via: 'ip', count: 3 },
        { month: '2026-11', via: 'ip', count: 4 },
        { month: '2026-11', via: 'seat', count: 3 },
      ]);
      assert.equal(await store.licenceUsage.ofLicence(gone.owner, gone.id), undefined);
      await store.licenceUsage.add([]);
    });
  });
}
