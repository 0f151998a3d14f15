/**
 * The licence usage a process tallies goes to the store in batches (src/http/plugins/licence-usage.ts):
 * each batch its own transaction, the event loop free between them, and a batch the store refuses
 * given back with those after it, so that the next flush adds every count once. On both stores.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { UsageCount } from '../../../src/domain/licence-usage.js';
import { licenceUsage } from '../../../src/http/plugins/licence-usage.js';
import type { Store } from '../../../src/store/port.js';
import { AUDIT, subscriptionValues } from '../../support/fixtures.js';
import { forEachStore, openTestStore, type TestStore } from '../../support/stores.js';

/** Distinct counts: one check a month, for 1,200 months from January 2000. */
const MONTHS = 1_200;
const at = (i: number) => Date.UTC(2000 + Math.floor(i / 12), i % 12, 15) / 1000;

forEachStore((kind) => {
  let testStore: TestStore;
  let licence: { userId: string; id: string };
  before(async () => {
    testStore = await openTestStore(kind);
    const { store } = testStore;
    const owner = await store.users.create(
      { email: `owner-${kind}@usage.example`, passwordHash: null, fields: { familyName: 'Owner' }, newsletters: [] },
      AUDIT,
    );
    const created = await store.subscriptions.create(
      owner.id,
      subscriptionValues({ license: 'site', resource: 'online', ipRanges: ['192.0.2.0/24'] }),
      AUDIT,
    );
    assert.ok(created);
    licence = { userId: owner.id, id: created.id };
  });
  after(() => testStore?.close());

  /** A process's counter over the store, with `add` in place of the store's own licenceUsage.add. */
  async function counter(add: (counts: readonly UsageCount[]) => Promise<void>): Promise<FastifyInstance> {
    const store = { ...testStore.store, licenceUsage: { ...testStore.store.licenceUsage, add: add } } as Store;
    const app = Fastify();
    await app.register(licenceUsage, { store, flushMs: 3_600_000, batchSize: 500 });
    await app.ready();
    return app;
  }

  const checksOf = async () =>
    ((await testStore.store.licenceUsage.ofLicence(licence.userId, licence.id)) ?? []).reduce(
      (sum, c) => sum + c.count,
      0,
    );

  it('adds a tally larger than a batch in batches, the event loop free between them', async () => {
    const batches: { size: number; loopRan: boolean }[] = [];
    let loopRan = false;
    const app = await counter(async (counts) => {
      batches.push({ size: counts.length, loopRan });
      await testStore.store.licenceUsage.add(counts);
    });
    try {
      const before = await checksOf();
      for (let i = 0; i < MONTHS; i++) app.licenceUsage.count(licence, 'ip', at(i));
      setImmediate(() => (loopRan = true));
      await app.licenceUsage.flush();
      assert.deepEqual(batches, [
        { size: 500, loopRan: false },
        { size: 500, loopRan: true },
        { size: 200, loopRan: true },
      ]);
      assert.equal((await checksOf()) - before, MONTHS);
    } finally {
      await app.close();
    }
  });

  it('gives back the batch the store refused and those after it, so that the next flush adds each count once', async () => {
    let calls = 0;
    const app = await counter(async (counts) => {
      calls += 1;
      if (calls === 2) throw new Error('the store is unavailable');
      await testStore.store.licenceUsage.add(counts);
    });
    try {
      const before = await checksOf();
      for (let i = 0; i < MONTHS; i++) app.licenceUsage.count(licence, 'ip', at(i));
      await app.licenceUsage.flush();
      assert.equal((await checksOf()) - before, 500, 'the first batch alone');
      await app.licenceUsage.flush();
      assert.equal((await checksOf()) - before, MONTHS);
    } finally {
      await app.close();
    }
  });
});
