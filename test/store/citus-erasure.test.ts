/**
 * On Citus, erasing a reader (`DELETE /users/{id}`) removes their rows from every shard of every
 * table that holds their data, read on the workers themselves: each table of the erasure list
 * (test/support/reader-tables.ts) holds no row naming the reader on any placement, and no
 * placement of any table, nor any table on the coordinator, holds a value of theirs.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CITUS_LAYOUT, type CitusLayout } from '../../src/store/postgres/citus.js';
import { citusSkipReason, readerInEveryTable, type EverywhereReader } from '../support/citus.js';
import { holdsReaders, READER_TABLES, readerKey } from '../support/reader-tables.js';
import { startService, type Service } from '../support/service.js';

const LAYOUTS = Object.entries(CITUS_LAYOUT) as [string, CitusLayout][];

describe('erasure on Citus', { skip: citusSkipReason }, () => {
  let service: Service;
  let reader: EverywhereReader;
  const marker = randomBytes(6).toString('hex');
  before(async () => {
    service = await startService('Citus');
    reader = await readerInEveryTable(service, marker);
  });
  after(() => service?.close());

  /**
   * The rows of `table` that `condition` (SQL on the row `t`) picks: on every placement of its
   * shards on the workers (every copy of a reference table), or on the coordinator for a local table.
   */
  async function countEverywhere(table: string, condition: string): Promise<number> {
    const layout = CITUS_LAYOUT[table as keyof typeof CITUS_LAYOUT] as CitusLayout;
    if (layout.kind === 'local') {
      const [row] = await service.sql(`SELECT count(*)::int AS n FROM ${table} t WHERE ${condition}`);
      return Number(row?.n);
    }
    const rows = await service.sql(
      `SELECT nodeport, success, result FROM run_command_on_placements(?,
         'SELECT count(*) FROM %s t WHERE ' || ?::text)`,
      [table, condition],
    );
    assert.ok(rows.length > 0, `${table} has placements`);
    let n = 0;
    for (const row of rows) {
      assert.equal(row.success, true, `${table}: ${row.result}`);
      n += Number(row.result);
    }
    return n;
  }

  const naming = (column: string, value: string) => `${column} = '${value.replace(/'/g, "''")}'`;
  // No % in a condition: run_command_on_placements reads the command as a format() string.
  const holdingMarker = `strpos(t::text, '${marker}') > 0`;

  /** The tables of the erasure list, with the condition that names the reader in each. */
  function readerConditions(): [string, string][] {
    return Object.entries(READER_TABLES)
      .filter(([table, reach]) => !reach.startsWith('kept') && holdsReaders('Citus', table))
      .map(([table, reach]) => [table, naming(...readerKey(table, reach, reader.userId, reader.email))]);
  }

  it('holds the reader in every table of the erasure list, and their values on the workers, before', async () => {
    for (const [table, condition] of readerConditions())
      assert.ok((await countEverywhere(table, condition)) > 0, `${table} holds the reader before the erasure`);
    const holding = [];
    for (const [table] of LAYOUTS) if ((await countEverywhere(table, holdingMarker)) > 0) holding.push(table);
    assert.ok(holding.includes('users') && holding.includes('subscriptions'), holding.join(', '));
  });

  it('leaves no row naming the reader on any shard of any table that held their data', async () => {
    const erased = await service.client.delete(`/users/${reader.userId}`);
    assert.equal(erased.status, 204, erased.text);
    for (const [table, condition] of readerConditions())
      assert.equal(await countEverywhere(table, condition), 0, `${table} still names the erased reader`);
  });

  it('leaves no value of the reader on any placement or coordinator table', async () => {
    const [gone] = await service.sql('SELECT count(*)::int AS n FROM users WHERE id = ?', [reader.userId]);
    assert.equal(gone?.n, 0, 'the reader was erased by the test before');
    for (const [table] of LAYOUTS)
      assert.equal(await countEverywhere(table, holdingMarker), 0, `${table} still holds a value of the reader`);
  });
});
