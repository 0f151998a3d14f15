/**
 * The jobs a serving process runs on its timers, with lapsing off as it is by default: the starts
 * that have come are still forgotten every minute, else the reads by what a started subscription
 * gives would grow with every renewal.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { startJobs, STARTS_INTERVAL_SECONDS, type JobSettings, type Jobs } from '../../src/jobs/schedule.js';
import { AUDIT, subscriptionValues, uniqueEmail } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const DAY = 24 * 3600;

const LAPSING_OFF: JobSettings = {
  lapseIntervalSeconds: 0,
  signInWindowSeconds: 900,
  consoleIdleSeconds: 1800,
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
    jobs?.stop();
    mock.timers.reset();
    await store.close();
  });

  const count = async (where: string) =>
    Number((await store.sql(`SELECT count(*) AS n FROM subscriptions WHERE ${where}`))[0]?.n);

  /**
   * A reader whose first subscription starts in two seconds and whose second in ten days, and the
   * moment the first has started: the job reads the real clock.
   */
  async function readerBookedAhead(): Promise<void> {
    const soon = Math.floor(Date.now() / 1000) + 2;
    const user = await store.store.createUser(
      { email: uniqueEmail(), passwordHash: null, fields: { familyName: 'Ahead' }, newsletters: [] },
      AUDIT,
    );
    for (const values of [
      subscriptionValues({ dateStarted: soon }),
      subscriptionValues({ dateStarted: soon + 10 * DAY }),
    ])
      await store.store.createSubscription(user.id, values, AUDIT);
    await sleep(soon * 1000 - Date.now() + 50);
  }

  describe('the jobs of a serving process, with lapsing off', () => {
    it('forget a start once it has come, within a minute, and keep the one still to come', async () => {
      await readerBookedAhead();
      assert.equal(await count('pending_start IS NOT NULL'), 2, 'nothing forgets a start before the timer fires');
      mock.timers.enable({ apis: ['setInterval'] });
      jobs = startJobs(store.store, LAPSING_OFF, log);
      mock.timers.tick(STARTS_INTERVAL_SECONDS * 1000);
      await eventually(async () => (await count('pending_start IS NOT NULL')) === 1, 'the start that came');
      assert.deepEqual(failures, []);
    });
  });
});
