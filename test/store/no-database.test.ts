/**
 * Opening a store told not to create a database (`create: false`, as every command but serve,
 * migrate and seed opens it): where there is none it refuses, and leaves nothing behind; a
 * database that is there opens as ever.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { NoDatabase, openStore, type DatabaseConfig } from '../../src/store/open.js';
import { admin, createTestSchema, postgresSkipReason } from '../support/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-no-database-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const sqlite = (path: string): DatabaseConfig => ({ kind: 'sqlite', path, synchronous: 'NORMAL', busyTimeoutMs: 1000 });

describe('SQLite, told not to create a database', () => {
  it('refuses a path with no file, and makes neither the file nor its folder', async () => {
    const path = join(dir, 'mistyped', 'circulation.db');
    await assert.rejects(openStore(sqlite(path), { create: false }), NoDatabase);
    assert.equal(existsSync(join(dir, 'mistyped')), false);
  });

  it('refuses a file without circulation tables, and leaves it as it was', async () => {
    const path = join(dir, 'empty.db');
    writeFileSync(path, '');
    await assert.rejects(openStore(sqlite(path), { create: false }), NoDatabase);
    assert.equal(statSync(path).size, 0);
  });

  it('refuses a database in memory, which is always new', async () => {
    await assert.rejects(openStore(sqlite(':memory:'), { create: false }), NoDatabase);
  });

  it('opens a database that is there', async () => {
    const path = join(dir, 'made.db');
    await (await openStore(sqlite(path))).close();
    await (await openStore(sqlite(path), { create: false })).close();
  });
});

describe('PostgreSQL, told not to create a database', { skip: postgresSkipReason }, () => {
  it('refuses a schema without circulation tables, and lays none out; opens it once it has them', async () => {
    const schema = await createTestSchema();
    const postgres: DatabaseConfig = {
      kind: 'postgres',
      url: schema.url,
      poolSize: 2,
      statementTimeoutMs: 5000,
      connectTimeoutMs: 2000,
    };
    try {
      await assert.rejects(openStore(postgres, { create: false }), NoDatabase);
      const tables = await admin('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema.name]);
      assert.deepEqual(tables, []);
      await (await openStore(postgres)).close();
      await (await openStore(postgres, { create: false })).close();
    } finally {
      await schema.drop();
    }
  });
});
