/**
 * SQLite's group commit (src/store/sqlite/group-commit.ts): the writes of one turn of the event
 * loop share one transaction, and every call of the turn answers only once it has committed.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { toUserFields } from '../../src/domain/user.js';
import { StoreUnavailable, withOutagesAsUnavailable } from '../../src/store/availability.js';
import type { Store } from '../../src/store/port.js';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';
import { AUDIT, subscriptionValues } from '../support/fixtures.js';
import { freshDatabasePath } from '../support/sqlite-files.js';

/** The number of rows of `table` another connection sees committed. */
function committedRows(path: string, table: 'users' | 'subscriptions'): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** What `look` sees at the end of this turn's callbacks, before a commit the turn's writes scheduled after it. */
function atTurnEnd<T>(look: () => T): Promise<T> {
  return new Promise((resolve) => setImmediate(() => resolve(look())));
}

const newUser = (email: string) => ({
  email,
  passwordHash: null,
  fields: toUserFields({ familyName: 'Reader' }),
  newsletters: [],
});

describe('SQLite group commit', () => {
  let path: string;
  let store: Store;
  let userId: string;
  beforeEach(async () => {
    path = freshDatabasePath();
    store = openSqliteStore({ path });
    userId = (await store.users.create(newUser('owner@example.com'), AUDIT)).id;
  });
  afterEach(() => store.close());

  it('commits the writes of one turn together, and answers each once they have committed', async () => {
    const seen = atTurnEnd(() => committedRows(path, 'subscriptions'));
    const writes = [1, 2, 3].map(() => store.subscriptions.create(userId, subscriptionValues(), AUDIT));
    // Each write ran in this turn; none had committed when the turn's callbacks ended.
    assert.equal(await seen, 0);
    assert.equal((await Promise.all(writes)).length, 3);
    assert.equal(committedRows(path, 'subscriptions'), 3);
  });

  it('undoes a write that fails alone, and commits the others of its turn', async () => {
    const [first, duplicate, last] = await Promise.allSettled([
      store.users.create(newUser('first@example.com'), AUDIT),
      store.users.create(newUser('owner@example.com'), AUDIT),
      store.users.create(newUser('last@example.com'), AUDIT),
    ]);
    assert.equal(first.status, 'fulfilled');
    assert.equal(duplicate.status, 'rejected');
    assert.equal(last.status, 'fulfilled');
    assert.equal(committedRows(path, 'users'), 3);
  });

  it('answers a read made in a turn with writes only once they have committed', async () => {
    const write = store.subscriptions.create(userId, subscriptionValues(), AUDIT);
    await store.users.get(userId);
    assert.equal(committedRows(path, 'subscriptions'), 1);
    await write;
  });

  it('lets two stores of one process on one file write in the same turn, the first committing first', async () => {
    // A wait for the write lock holds the event loop: the first store's commit could not run in it.
    const second = openSqliteStore({ path, busyTimeoutMs: 100 });
    try {
      await Promise.all([
        store.subscriptions.create(userId, subscriptionValues(), AUDIT),
        second.subscriptions.create(userId, subscriptionValues(), AUDIT),
      ]);
      assert.equal(committedRows(path, 'subscriptions'), 2);
    } finally {
      await second.close();
    }
  });

  it('commits the writes of the turn the store is closed in', async () => {
    await store.close();
    // Counts read on this connection close at once: nothing else lets the turn end first.
    store = openSqliteStore({ path, longReadsOffLoop: false });
    const write = store.subscriptions.create(userId, subscriptionValues(), AUDIT);
    await store.close();
    await write;
    assert.equal(committedRows(path, 'subscriptions'), 1);
    store = openSqliteStore({ path });
  });
});

describe('GroupCommit', () => {
  it('fails every call of a turn whose commit fails, and keeps none of its writes', async () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    db.exec(`CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)`);
    const group = new GroupCommit(db);
    // A deferred foreign key is checked at the commit: the orphan fails the turn's transaction.
    db.transaction(() => db.exec('INSERT INTO parents (id) VALUES (1)'))();
    db.transaction(() => db.exec('INSERT INTO children (parent) VALUES (2)'))();
    const committed = group.settled();
    assert.ok(committed);
    await assert.rejects(committed, { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    assert.equal(db.inTransaction, false);
    assert.deepEqual(db.prepare('SELECT count(*) AS n FROM parents').get(), { n: 0 });
    db.close();
  });

  it('runs what waits for the commit after it, and at once when nothing is to commit', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x INTEGER)');
    const group = new GroupCommit(db);
    const ran: string[] = [];
    group.whenCommitted(() => ran.push('idle'));
    db.transaction(() => db.exec('INSERT INTO t VALUES (1)'))();
    group.whenCommitted(() => ran.push(db.inTransaction ? 'inside' : 'after'));
    assert.deepEqual(ran, ['idle']);
    await group.settled();
    assert.deepEqual(ran, ['idle', 'after']);
    db.close();
  });
});

describe('A call waiting on its turn', () => {
  it('fails as the database not answering when the commit fails for a full disk', async () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const answered = { users: { get: async () => ({ id: '1' }) } } as unknown as Store;
    const store = withOutagesAsUnavailable(answered, () => Promise.reject(full));
    await assert.rejects(store.users.get('1'), StoreUnavailable);
  });
});
