/**
 * Lapsing: subscriptions whose dateEnded has passed become expired, once each, with their event,
 * by the `lapse` command or by a serving process on an interval, however many processes do it.
 * Also on Citus, where the subscriptions sit on the workers' shards and the events on the
 * coordinator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUDIT, createUser, subscriptionDocument, userDocument } from '../support/fixtures.js';
import { runCommand, startProcess } from '../support/process.js';
import { forEachStoreAndCitus } from '../support/citus.js';
import { eventually } from '../support/eventually.js';
import { openTestStore, type TestStore } from '../support/stores.js';

const day = 24 * 3600;
const now = () => Math.floor(Date.now() / 1000);

forEachStoreAndCitus((kind) => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store.close());

  describe('circulation lapse', () => {
    it('expires only what has ended, keeping its dateEnded, once', async () => {
      const user = await store.store.users.create(
        { email: `lapse-${kind}@example.com`, passwordHash: null, fields: { familyName: 'Lapse' }, newsletters: [] },
        AUDIT,
      );
      const values = (dateEnded: number | null) => ({
        dateStarted: now() - 30 * day,
        dateEnded,
        externalIdentifier: null,
        license: null,
        resource: null,
        trial: false,
        productId: null,
        deliveryDays: null,
        ipRanges: [],
        emailDomains: [],
        seats: null,
      });
      const ended = await store.store.subscriptions.create(user.id, values(now() - day), AUDIT);
      const running = await store.store.subscriptions.create(user.id, values(now() + day), AUDIT);
      const open = await store.store.subscriptions.create(user.id, values(null), AUDIT);
      const run = () => runCommand(store.databaseUrl, 'lapse');
      assert.match(run().stdout, /^1 subscriptions lapsed/);
      const after = await store.store.subscriptions.list(user.id, { limit: 100 });
      assert.deepEqual(
        after?.map((s) => [s.id, s.expired]),
        [
          [ended!.id, true],
          [running!.id, false],
          [open!.id, false],
        ],
      );
      assert.equal(after?.[0]?.dateEnded, ended!.dateEnded);
      assert.match(run().stdout, /^0 subscriptions lapsed/);
      const events = await store.store.audit.list({
        resourceType: 'subscriptions',
        resourceId: ended!.id,
        limit: 10,
      });
      assert.deepEqual(
        events.map((e) => [e.action, e.actor]),
        [
          ['create', 'test'],
          ['expire', 'lapse'],
        ],
      );
    });
  });

  describe('LAPSE_INTERVAL_SECONDS', () => {
    it('lets a serving process lapse ended subscriptions on its own', async () => {
      const service = await startProcess({ DATABASE_URL: store.databaseUrl, LAPSE_INTERVAL_SECONDS: '1' });
      try {
        const userId = await createUser(service.client, userDocument().data.attributes);
        const created = await service.client.post(
          `/users/${userId}/subscriptions`,
          subscriptionDocument({ dateStarted: '2020-01-01T00:00:00Z', dateEnded: '2021-01-01T00:00:00Z' }),
        );
        const path = `/users/${userId}/subscriptions/${created.body.data.id}`;
        let expired = false;
        for (let i = 0; i < 40 && !expired; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 150));
          expired = (await service.client.get(path)).body.data.attributes.expired;
        }
        assert.ok(expired, 'the subscription did not lapse');
      } finally {
        await service.stop();
      }
    });
  });

  describe('two serving processes lapsing on one database', () => {
    it('expire each ended subscription once, with one expire event each', async () => {
      const user = await store.store.users.create(
        {
          email: `lapse-two-${kind}@example.com`,
          passwordHash: null,
          fields: { familyName: 'Lapse' },
          newsletters: [],
        },
        AUDIT,
      );
      const ended = [];
      for (let i = 0; i < 20; i += 1) {
        const values = {
          dateStarted: now() - 30 * day,
          dateEnded: now() - day + i,
          externalIdentifier: null,
          license: null,
          resource: null,
          trial: false,
          productId: null,
          deliveryDays: null,
          ipRanges: [],
          emailDomains: [],
          seats: null,
        };
        ended.push((await store.store.subscriptions.create(user.id, values, AUDIT))!.id);
      }
      const env = { DATABASE_URL: store.databaseUrl, LAPSE_INTERVAL_SECONDS: '1' };
      const [one, two] = await Promise.all([startProcess(env), startProcess(env)]);
      try {
        await eventually(
          async () => (await store.store.subscriptions.list(user.id, { limit: 100 }))?.every((s) => s.expired),
          'every ended subscription to lapse',
        );
        // A second round of both processes' timers, which must find nothing left to lapse.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        for (const id of ended) {
          const events = await store.store.audit.list({
            resourceType: 'subscriptions',
            resourceId: id,
            limit: 10,
          });
          assert.deepEqual(
            events.map((e) => e.action),
            ['create', 'expire'],
            `subscription ${id}`,
          );
        }
      } finally {
        await Promise.all([one.stop(), two.stop()]);
      }
    });
  });
});
