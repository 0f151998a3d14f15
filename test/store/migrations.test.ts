/**
 * The two dialects' migration lists are one schema history: the same versions, in order, with
 * the same names, so a database of either kind at version N has the same tables and meanings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Migration } from '../../src/store/sql/migrations.js';
import { postgresMigrations } from '../../src/store/postgres/migrations.js';
import { sqliteMigrations } from '../../src/store/sqlite/migrations.js';

describe('the migration lists', () => {
  it('have the same versions and names on SQLite and PostgreSQL', () => {
    const listed = (migrations: readonly Migration[]) => migrations.map((m) => `${m.version} ${m.name}`);
    assert.deepEqual(listed(postgresMigrations), listed(sqliteMigrations));
  });

  it('number their versions 1, 2, 3… with none skipped or repeated', () => {
    assert.deepEqual(
      sqliteMigrations.map((m) => m.version),
      sqliteMigrations.map((_, i) => i + 1),
    );
  });
});
