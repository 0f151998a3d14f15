/**
 * Retention in real processes: a serving process prunes on its own timer, with no request to
 * prompt it, two of them remove each row once between them, and `circulation prune` does the
 * same once. Also on Citus.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { runCommand, startProcess } from '../support/process.js';
import { forEachStoreAndCitus } from '../support/citus.js';
import { openTestStore, type TestStore } from '../support/stores.js';

const LIMITS = { staleAfter: 60, keepFor: 24 * 3600 };
const hoursAgo = (hours: number) => Math.floor(Date.now() / 1000) - hours * 3600;

forEachStoreAndCitus((kind) => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store.close());

  const keys = async () => (await store.sql('SELECT key FROM idempotency_keys ORDER BY key')).map((r) => r.key);

  describe('a serving process', () => {
    it('removes expired idempotency keys on its timer, with no request arriving', async () => {
      await store.store.idempotency.claimKey('s', 'timer-expired', 'f', hoursAgo(3), LIMITS);
      await store.store.idempotency.claimKey('s', 'timer-kept', 'f', hoursAgo(0), LIMITS);
      const service = await startProcess({
        DATABASE_URL: store.databaseUrl,
        RETENTION_INTERVAL_SECONDS: '1',
        IDEMPOTENCY_RETENTION_HOURS: '2',
      });
      try {
        await eventually(
          async () => !(await keys()).includes('timer-expired'),
          () => 'the expired key to go',
        );
        assert.ok((await keys()).includes('timer-kept'));
      } finally {
        await service.stop();
      }
    });
  });

  describe('two serving processes pruning on one database', () => {
    it('remove each expired idempotency key once between them, keeping the rest', async () => {
      const expired = Array.from({ length: 30 }, (_, i) => `pair-expired-${i}`);
      for (const key of expired) await store.store.idempotency.claimKey('s', key, 'f', hoursAgo(3), LIMITS);
      await store.store.idempotency.claimKey('s', 'pair-kept', 'f', hoursAgo(0), LIMITS);
      const env = {
        DATABASE_URL: store.databaseUrl,
        RETENTION_INTERVAL_SECONDS: '1',
        IDEMPOTENCY_RETENTION_HOURS: '2',
      };
      const [one, two] = await Promise.all([startProcess(env), startProcess(env)]);
      try {
        await eventually(
          async () => !(await keys()).some((key) => String(key).startsWith('pair-expired-')),
          () => 'the expired keys to go',
        );
        // What each process says it removed adds up to what there was: no row counted twice.
        const removed = () => prunedKeys(one.output()) + prunedKeys(two.output());
        await eventually(
          () => removed() >= expired.length,
          () => `the processes to report ${expired.length} keys removed: ${removed()}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 1500));
        assert.equal(removed(), expired.length);
        assert.ok((await keys()).includes('pair-kept'));
      } finally {
        await Promise.all([one.stop(), two.stop()]);
      }
    });
  });

  describe('circulation prune', () => {
    it('removes what has outlived its retention once, and says how much', async () => {
      await store.store.idempotency.claimKey('s', 'command-expired', 'f', hoursAgo(30), LIMITS);
      const result = runCommand(store.databaseUrl, 'prune');
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /^1 idempotency keys, 0 webhook deliveries and 0 audit entries removed/);
      assert.ok(!(await keys()).includes('command-expired'));
    });
  });
});

/** The idempotency keys a process's log says it removed, over all its pruning rounds. */
function prunedKeys(output: string): number {
  return output
    .split('\n')
    .filter((line) => line.includes('pruned what outlived its retention'))
    .reduce((sum, line) => sum + (JSON.parse(line) as { idempotencyKeys: number }).idempotencyKeys, 0);
}
