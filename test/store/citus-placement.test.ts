/**
 * On Citus, a reader's rows sit where the layout says: every table distributed beside `users`
 * holds the reader's rows in the shard that `get_shard_id_for_distribution_column` names for the
 * reader's id, and that shard is co-located with the reader's own (same hash range, same node);
 * the email lookup and the sign-in attempts likewise sit together on the shard of the email.
 * Where the rows are is read from the shards themselves, on the workers.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CITUS_LAYOUT, type CitusLayout } from '../../src/store/postgres/citus.js';
import { citusSkipReason, readerInEveryTable, type EverywhereReader } from '../support/citus.js';
import { createUser } from '../support/fixtures.js';
import { holdsReaders } from '../support/reader-tables.js';
import { startService, type Service } from '../support/service.js';

/** The distributed tables placed by `root`'s distribution values that hold rows: itself and those beside it. */
function group(root: keyof typeof CITUS_LAYOUT): [string, string][] {
  return (Object.entries(CITUS_LAYOUT) as [string, CitusLayout][])
    .filter(([table, l]) => l.kind === 'distributed' && (table === root || l.colocateWith === root))
    .filter(([table]) => holdsReaders('Citus', table))
    .map(([table, l]) => [table, (l as { by: string }).by]);
}

interface Placement {
  shardid: string;
  minvalue: string;
  groupid: number;
}

describe('placement on Citus', { skip: citusSkipReason }, () => {
  let service: Service;
  let reader: EverywhereReader;
  before(async () => {
    service = await startService('Citus');
    reader = await readerInEveryTable(service, randomBytes(6).toString('hex'));
  });
  after(() => service?.close());

  /** The shards of `table` that hold rows whose `column` is `value`, read on the workers, with their row counts. */
  async function shardsHolding(table: string, column: string, value: string): Promise<Map<string, number>> {
    const rows = await service.sql(
      `SELECT shardid::text AS shardid, success, result FROM run_command_on_shards(?,
         format('SELECT count(*) FROM %%s WHERE %I = %L', ?::text, ?::text))`,
      [table, column, value],
    );
    const holding = new Map<string, number>();
    for (const row of rows) {
      assert.equal(row.success, true, `${table}: ${row.result}`);
      if (Number(row.result) > 0) holding.set(String(row.shardid), Number(row.result));
    }
    return holding;
  }

  /** The shard that Citus names for `value` in `table`, with its hash range and node. */
  async function placementOf(table: string, value: string): Promise<Placement> {
    const [row] = await service.sql(
      `SELECT s.shardid::text AS shardid, s.shardminvalue AS minvalue, p.groupid
       FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
       WHERE s.shardid = get_shard_id_for_distribution_column(?::regclass, ?::text)`,
      [table, value],
    );
    assert.ok(row, `no placement of ${table} for ${value}`);
    return row as unknown as Placement;
  }

  /** Asserts every table of the group holds the value's rows on the one shard co-located with the root's. */
  async function assertTogether(root: keyof typeof CITUS_LAYOUT, value: string) {
    const tables = group(root);
    assert.ok(tables.length > 1, `${root} has tables beside it`);
    const home = await placementOf(root, value);
    for (const [table, column] of tables) {
      const expected = await placementOf(table, value);
      const holding = await shardsHolding(table, column, value);
      assert.deepEqual([...holding.keys()], [expected.shardid], `${table}: the rows sit on its shard for ${value}`);
      assert.equal(expected.minvalue, home.minvalue, `${table}'s shard covers the hash range of ${root}'s`);
      assert.equal(expected.groupid, home.groupid, `${table}'s shard is on the node of ${root}'s`);
    }
  }

  it("keeps every table beside users on the reader's shard group, all of them holding rows", async () => {
    await assertTogether('users', reader.userId);
    const [subscriptions] = await service.sql('SELECT count(*)::int AS n FROM subscriptions WHERE user_id = ?', [
      reader.userId,
    ]);
    assert.equal(subscriptions?.n, reader.subscriptionIds.length);
    for (const [table, column] of group('users')) {
      const holding = await shardsHolding(table, column, reader.userId);
      assert.ok([...holding.values()][0]! > 0, `${table} holds rows of the reader`);
    }
  });

  it("keeps the email lookup and the sign-in attempts together on the email's shard", async () => {
    await assertTogether('user_emails', reader.email.toLowerCase());
    for (const [table, column] of group('user_emails')) {
      const holding = await shardsHolding(table, column, reader.email.toLowerCase());
      assert.equal(holding.size, 1, `${table} holds the reader's email`);
    }
  });

  it('spreads readers over more than one node', async () => {
    const others = await Promise.all(
      Array.from({ length: 8 }, async () => (await placementOf('users', await createUser(service.client))).groupid),
    );
    assert.ok(new Set(others).size > 1, 'all readers on one node');
  });
});
