/**
 * The jobs a serving process runs on its timers, with lapsing off as it is by default: the starts
 * that have come are still forgotten every minute, else the reads by what a started subscription
 * gives would grow with every renewal.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { startJobs, type JobSettings, type Jobs } from '../../src/jobs/schedule.js';
import { AUDIT, subscriptionValues, uniqueEmail } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const DAY = 24 * 3600;

const LAPSING_OFF: JobSettings = {
  lapseIntervalSeconds: 0,
  signInWindowSeconds: 900,
  consoleIdleSeconds: 1800,
  consoleMaxAgeSeconds: 12 * 3600,
  retentionIntervalSeconds: 0,
  retention: { idempotencyHours: 24, deliveryDays: 0, auditDays: 0 },
};

forEachStore((kind) => {
  let store: TestStore;
  let jobs: Jobs | undefined;
  const failures: unknown[] = [];
  const log = { info() {}, error: (...args: unknown[]) => void failures.push(args) };

  beforeEach(async () => {
    store = await openTestStore(kind);
    failures.length = 0;
  });
  afterEach(async () => {
    await jobs?.stop();
    mock.timers.reset();
    await store.close();
  });

  const stillToCome = async () =>
    Number((await store.sql('SELECT count(*) AS n FROM subscriptions WHERE pending_start IS NOT NULL'))[0]?.n);

  /** A reader with two subscriptions booked ahead, one starting in ten days and one in thirty. */
  async function readerBookedAhead(): Promise<void> {
    const today = Math.floor(Date.now() / 1000);
    const user = await store.store.users.create(
      { email: uniqueEmail(), passwordHash: null, fields: { familyName: 'Ahead' }, newsletters: [] },
      AUDIT,
    );
    for (const days of [10, 30]) {
      await store.store.subscriptions.create(user.id, subscriptionValues({ dateStarted: today + days * DAY }), AUDIT);
    }
  }

  describe('the jobs of a serving process, with lapsing off', () => {
    it('forget a start once it has come, within a minute, and keep the one still to come', async () => {
      await readerBookedAhead();
      // Twenty days on: the first start has come, and the timers' first minute is yet to pass.
      mock.timers.enable({ apis: ['setInterval', 'Date'], now: Date.now() + 20 * DAY * 1000 });
      jobs = startJobs(store.store, LAPSING_OFF, log);
      assert.equal(await stillToCome(), 2, 'nothing forgets a start before the timer fires');
      mock.timers.tick(60_000);
      await eventually(async () => (await stillToCome()) === 1, 'the start that came');
      await jobs.stop();
      assert.equal(await stillToCome(), 1);
      assert.deepEqual(failures, []);
    });
  });
});
