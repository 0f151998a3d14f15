/**
 * Retention: idempotency keys, finished webhook deliveries and (when asked) audit entries go once
 * they have outlived their settings, a small batch at a time, and nothing else goes with them.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { pruneExpired } from '../../src/jobs/retention.js';
import { AUDIT } from '../support/fixtures.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const DEFAULTS = { idempotencyHours: 24, deliveryDays: 30, auditDays: 0 };
const LIMITS = { staleAfter: 60, keepFor: 24 * 3600 };

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;

forEachStore((kind) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore(kind);
  });
  afterEach(() => store.close());

  const count = async (table: string) => Number((await store.sql(`SELECT count(*) AS n FROM ${table}`))[0]?.n);
  const newUser = () =>
    store.store.users.create(
      {
        email: `retention-${unique()}@example.com`,
        passwordHash: null,
        fields: { familyName: 'Kept' },
        newsletters: [],
      },
      AUDIT,
    );

  /** A webhook for user.created, and `users` new users: one pending delivery each. */
  async function deliveriesOf(users: number): Promise<string> {
    const webhook = await store.store.webhooks.create(
      { url: 'https://hooks.example.com/', events: ['user.created'], secretSalt: 's' },
      AUDIT,
    );
    for (let i = 0; i < users; i += 1) await newUser();
    return webhook.id;
  }

  /** Claims every due delivery and finishes it as `state`, leaving `pending` of them pending. */
  async function finishAll(state: 'delivered' | 'failed', leavePending = 0): Promise<void> {
    const now = Date.now();
    const claimed = await store.store.webhooks.claimDeliveries(now, 60_000, 1000);
    for (const { delivery } of claimed.slice(leavePending)) {
      const outcome = { state, at: now, nextAttemptAt: null, status: 200, error: null };
      await store.store.webhooks.finishDelivery(delivery.id, delivery.version, outcome);
    }
  }

  describe('pruning', () => {
    it('removes idempotency keys past IDEMPOTENCY_RETENTION_HOURS, without any request, and no newer one', async () => {
      const now = Date.now();
      const old = unique();
      const recent = unique();
      await store.store.idempotency.claimKey('s', old, 'f', Math.floor((now - 25 * HOUR) / 1000), LIMITS);
      await store.store.idempotency.claimKey('s', recent, 'f', Math.floor((now - 23 * HOUR) / 1000), LIMITS);
      const pruned = await pruneExpired(store.store, DEFAULTS, now);
      assert.equal(pruned.idempotencyKeys, 1);
      assert.deepEqual(
        (await store.sql('SELECT key FROM idempotency_keys WHERE key IN (?, ?)', [old, recent])).map((r) => r.key),
        [recent],
      );
    });

    it('removes delivered and failed deliveries past DELIVERY_RETENTION_DAYS, and never a pending one', async () => {
      await deliveriesOf(3);
      await finishAll('delivered', 1);
      assert.equal(await count('webhook_deliveries'), 3);
      assert.equal((await pruneExpired(store.store, DEFAULTS, Date.now() + 29 * DAY)).deliveries, 0);
      assert.equal((await pruneExpired(store.store, DEFAULTS, Date.now() + 31 * DAY)).deliveries, 2);
      const left = await store.sql('SELECT state FROM webhook_deliveries');
      assert.deepEqual(
        left.map((r) => r.state),
        ['pending'],
      );
    });

    it('keeps the audit trail and its events for ever unless AUDIT_RETENTION_DAYS is set', async () => {
      await newUser();
      const entries = await count('audit_log');
      assert.equal((await pruneExpired(store.store, DEFAULTS, Date.now() + 3650 * DAY)).auditEntries, 0);
      assert.equal(await count('audit_log'), entries);
    });

    it('removes audit entries past AUDIT_RETENTION_DAYS with their finished deliveries, but none with one pending', async () => {
      await deliveriesOf(2);
      await finishAll('failed', 1);
      const pending = await store.sql("SELECT event_id FROM webhook_deliveries WHERE state = 'pending'");
      const settings = { ...DEFAULTS, deliveryDays: 0, auditDays: 7 };
      assert.equal((await pruneExpired(store.store, settings, Date.now() + 6 * DAY)).auditEntries, 0);
      await pruneExpired(store.store, settings, Date.now() + 8 * DAY);
      assert.deepEqual(
        (await store.sql('SELECT id FROM audit_log')).map((r) => String(r.id)),
        pending.map((r) => String(r.event_id)),
      );
      assert.equal(await count('webhook_deliveries'), 1);
    });

    it('removes at most the batch it is asked for in one call', async () => {
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 5; i += 1) await store.store.idempotency.claimKey('batch', unique(), 'f', now - 100, LIMITS);
      assert.equal(await store.store.retention.pruneIdempotencyKeys(now, 2), 2);
      assert.equal(await store.store.retention.pruneIdempotencyKeys(now, 2), 2);
      assert.equal(await store.store.retention.pruneIdempotencyKeys(now, 2), 1);
      assert.equal(await store.store.retention.pruneIdempotencyKeys(now, 2), 0);
    });
  });
});
