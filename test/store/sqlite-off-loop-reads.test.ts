/**
 * The counts as long as a table, read on a worker's own connection (store/sqlite/off-loop-reads.ts):
 * the event loop goes on answering while they run, and they read what was committed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { sql } from '../../src/store/sql/builder.js';
import { offLoopReads, type OffLoopReads } from '../../src/store/sqlite/off-loop-reads.js';

/** A statement that reads nothing from disk and takes a while: long enough for the loop to turn many times. */
const LONG_COUNT = sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${2_000_000})
  SELECT count(*) AS n FROM n`;

describe('reads off the event loop (SQLite)', () => {
  let dir: string;
  let db: Database.Database;
  let reads: OffLoopReads;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'circulation-off-loop-'));
    const path = join(dir, 'test.db');
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v INTEGER)');
    reads = offLoopReads(path, 1000);
  });
  after(async () => {
    await reads.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leave the event loop turning while a long count runs', async () => {
    let turns = 0;
    let reading = true;
    const turn = () => {
      turns += 1;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    const [[row] = []] = await reads.read([LONG_COUNT]);
    reading = false;
    assert.equal(row?.n, 2_000_000);
    // On the loop's own thread the count would run before the first turn: none until it ended.
    assert.ok(turns > 10, `the loop turned ${turns} times during the count`);
  });

  it('read what the main connection committed just before', async () => {
    db.prepare('INSERT INTO t (v) VALUES (?)').run(7);
    const [[row] = []] = await reads.read([sql`SELECT sum(v) AS total FROM t`]);
    assert.equal(row?.total, 7);
  });

  it('answer each statement of one call with its own rows, in order', async () => {
    const [first, second] = await reads.read([
      sql`SELECT ${1} AS a`,
      sql`SELECT ${'two'} AS b UNION ALL SELECT ${'three'}`,
    ]);
    assert.deepEqual(first, [{ a: 1 }]);
    assert.deepEqual(second, [{ b: 'two' }, { b: 'three' }]);
  });

  it('refuse a statement that fails with its message, and go on answering after it', async () => {
    await assert.rejects(reads.read([sql`SELECT * FROM no_such_table`]), /no such table: no_such_table/);
    const [[row] = []] = await reads.read([sql`SELECT count(*) AS n FROM t`]);
    assert.equal(row?.n, 1);
  });

  it('refuse to write: the connection is read-only', async () => {
    await assert.rejects(reads.read([sql`INSERT INTO t (v) VALUES (${1}) RETURNING v`]), (error: { code?: string }) => {
      assert.equal(error.code, 'SQLITE_READONLY');
      return true;
    });
  });
});
