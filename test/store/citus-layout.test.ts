/**
 * Every table the PostgreSQL migrations make has a declared place on Citus (src/store/postgres/
 * citus.ts), so a table that lands later cannot be left out of a distributed deployment.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { CITUS_LAYOUT } from '../../src/store/postgres/citus.js';
import { postgresMigrations } from '../../src/store/postgres/migrations.js';
import { migratePostgres } from '../../src/store/postgres/open.js';
import { admin, createTestSchema, postgresSkipReason, type TestSchema } from '../support/postgres.js';

describe('the Citus layout', { skip: postgresSkipReason }, () => {
  let schema: TestSchema | undefined;
  after(() => schema?.drop());

  it('declares where every table of the migrations lives', async () => {
    schema = await createTestSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    await migratePostgres(pool, postgresMigrations);
    await pool.end();
    const tables = await admin<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = $1', [
      schema.name,
    ]);
    assert.deepEqual(tables.map((t) => t.tablename).sort(), Object.keys(CITUS_LAYOUT).sort());
  });

  it('places each table beside one laid out before it', () => {
    const names = Object.keys(CITUS_LAYOUT);
    for (const [table, layout] of Object.entries(CITUS_LAYOUT)) {
      if (!('colocateWith' in layout)) continue;
      assert.ok(names.indexOf(layout.colocateWith) < names.indexOf(table), `${table} is laid out after its group`);
    }
  });
});
