/**
 * The lapse job and the job that forgets the starts that have come, in batches: every
 * subscription due lapses and every start that has come is forgotten, however many there are, and
 * other work runs between the batches.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { lapseDue } from '../../src/jobs/lapse.js';
import { forgetStartsThatCame } from '../../src/jobs/starts.js';
import type { SubscriptionValues } from '../../src/domain/subscription.js';
import { AUDIT, subscriptionValues as subscription } from '../support/fixtures.js';
import { forEachStoreAndCitus } from '../support/citus.js';
import { openTestStore, type TestStore } from '../support/stores.js';

const DAY = 24 * 3600;
const NOW = Math.floor(Date.now() / 1000);

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;

forEachStoreAndCitus((kind) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore(kind);
  });
  afterEach(() => store.close());

  /** One reader with these subscriptions. */
  async function readerWith(subscriptions: SubscriptionValues[]): Promise<void> {
    const user = await store.store.users.create(
      { email: `lapse-${unique()}@example.com`, passwordHash: null, fields: { familyName: 'Lapse' }, newsletters: [] },
      AUDIT,
    );
    for (const values of subscriptions) await store.store.subscriptions.create(user.id, values, AUDIT);
  }

  const count = async (where: string) =>
    Number((await store.sql(`SELECT count(*) AS n FROM subscriptions WHERE ${where}`))[0]?.n);

  /**
   * Booked ahead, each start passed two days on, and four subscriptions ended by then: what a
   * renewal day looks like to the jobs.
   */
  async function renewalDay(): Promise<void> {
    await readerWith([
      subscription({ dateStarted: NOW + DAY, dateEnded: NOW + DAY + 1 }),
      subscription({ dateStarted: NOW + DAY }),
      subscription({ dateStarted: NOW + DAY }),
    ]);
    await readerWith([
      subscription({ dateEnded: NOW - 1 }),
      subscription({ dateStarted: NOW + DAY, dateEnded: NOW + DAY + 1 }),
    ]);
    await readerWith([subscription({ dateStarted: NOW + 3 * DAY }), subscription({ dateEnded: NOW + DAY })]);
  }

  describe('the lapse job, in batches', () => {
    it('lapses every subscription due, over several batches', async () => {
      await renewalDay();
      assert.equal(await lapseDue(store.store, NOW + 2 * DAY, 2), 4);
      assert.equal(await count('expired'), 4);
    });

    it('leaves the starts that have come to their own job, which forgets them all over several batches', async () => {
      await renewalDay();
      await lapseDue(store.store, NOW + 2 * DAY, 2);
      assert.equal(await count('pending_start IS NOT NULL'), 5, 'lapsing forgets no start');
      assert.equal(await forgetStartsThatCame(store.store, NOW + 2 * DAY, 2), 4);
      assert.equal(await count('pending_start IS NOT NULL'), 1, 'only the start still to come is kept');
    });

    it('lets other work run between its batches', async () => {
      await readerWith([
        subscription({ dateEnded: NOW - 1 }),
        subscription({ dateEnded: NOW - 1 }),
        subscription({ dateEnded: NOW - 1 }),
      ]);
      let ranBetween = false;
      setImmediate(() => (ranBetween = true));
      const lapsed = await lapseDue(store.store, NOW, 1);
      assert.equal(lapsed, 3);
      assert.ok(ranBetween, 'a callback queued before the job ran before it ended');
    });
  });

  describe('clearPendingStarts', () => {
    it('forgets at most the given number of starts at a time, those that have come only', async () => {
      await readerWith([
        subscription({ dateStarted: NOW + DAY }),
        subscription({ dateStarted: NOW + DAY }),
        subscription({ dateStarted: NOW + DAY }),
        subscription({ dateStarted: NOW + 10 * DAY }),
      ]);
      const later = NOW + 2 * DAY;
      assert.equal(await store.store.subscriptions.clearPendingStarts(later, 2), 2);
      assert.equal(await store.store.subscriptions.clearPendingStarts(later, 2), 1);
      assert.equal(await store.store.subscriptions.clearPendingStarts(later, 2), 0);
      assert.equal(await count('pending_start IS NOT NULL'), 1);
    });
  });
});
