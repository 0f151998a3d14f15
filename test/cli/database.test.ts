/**
 * How a command names the database it works on: a SQLite file by its path, a PostgreSQL URL
 * without its password, wherever the URL carries one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeDatabase, redactedUrl } from '../../src/cli/database.js';

const POSTGRES = { kind: 'postgres', poolSize: 1, statementTimeoutMs: 1, connectTimeoutMs: 1 } as const;

describe('the database a command names', () => {
  it('names a SQLite database by its file', () => {
    const sqlite = {
      kind: 'sqlite',
      path: '/srv/data/circulation.db',
      synchronous: 'NORMAL',
      busyTimeoutMs: 1,
    } as const;
    assert.equal(describeDatabase(sqlite), 'the SQLite database /srv/data/circulation.db');
  });

  it('names a PostgreSQL database by its URL, the password as ***', () => {
    assert.equal(
      describeDatabase({ ...POSTGRES, url: 'postgres://app:s3cr%40t@db.internal:5432/circulation' }),
      'the PostgreSQL database postgres://app:***@db.internal:5432/circulation',
    );
  });

  it('hides a password given as a parameter, and keeps the other parameters', () => {
    const shown = redactedUrl('postgresql://app@db/circulation?password=s3cret&sslmode=require&sslpassword=k3y');
    assert.equal(shown, 'postgresql://app@db/circulation?password=***&sslmode=require&sslpassword=***');
  });

  it('leaves a URL without a password as it is', () => {
    assert.equal(redactedUrl('postgres://postgres@127.0.0.1:5432/test'), 'postgres://postgres@127.0.0.1:5432/test');
  });
});
