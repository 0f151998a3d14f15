/**
 * The SQLite adapter: the store contract over a fresh file database, and what only SQLite has —
 * its migrations, its schema's own refusals, and the indexes its filters use.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { toUserFields } from '../../src/domain/user.js';
import { USER_COLUMNS } from '../../src/store/sql/users.js';
import type { Store } from '../../src/store/port.js';
import { sqliteMigrations } from '../../src/store/sqlite/migrations.js';
import { migrate, openSqliteStore } from '../../src/store/sqlite/open.js';
import { AUDIT } from '../support/fixtures.js';
import { storeContract } from './contract.js';

const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A path for a database file in a new temporary directory, removed when the file's tests end. */
function freshDatabasePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'circulation-sqlite-test-'));
  tempDirs.push(dir);
  return join(dir, 'circulation.db');
}

/** Runs `use` on a plain connection to the file, with foreign keys enforced as the adapter does. */
function withRawDatabase<T>(path: string, use: (db: Database.Database) => T): T {
  const db = new Database(path);
  db.pragma('foreign_keys = ON');
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** A file database with the current schema and nothing in it, its store closed. */
async function migratedDatabasePath(): Promise<string> {
  const path = freshDatabasePath();
  await openSqliteStore({ path }).close();
  return path;
}

function insertUserSql(familyName: string, email = 'raw@example.com'): [string, unknown[]] {
  return [
    'INSERT INTO users (email, email_lower, email_domain, family_name) VALUES (?, ?, ?, ?)',
    [email, email.toLowerCase(), email.slice(email.indexOf('@') + 1), familyName],
  ];
}

const LATEST_VERSION = sqliteMigrations.at(-1)!.version;

storeContract('SQLite', () => openSqliteStore({ path: freshDatabasePath() }));

describe('SQLite migrations', () => {
  it('record every applied migration in schema_migrations', async () => {
    const path = await migratedDatabasePath();
    const versions = withRawDatabase(path, (db) =>
      (db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[]).map(
        (r) => r.version,
      ),
    );
    assert.deepEqual(
      versions,
      sqliteMigrations.map((m) => m.version),
    );
  });

  it('keep the data of an existing file when it is opened again', async () => {
    const path = freshDatabasePath();
    const first = openSqliteStore({ path });
    const created = await first.createUser(
      {
        email: 'kept@example.com',
        passwordHash: null,
        fields: toUserFields({ familyName: 'Kept', demographics: { recommendations: ['a'] } }),
        newsletters: ['daily'],
      },
      AUDIT,
    );
    await first.close();
    const second = openSqliteStore({ path });
    try {
      assert.deepEqual(await second.getUser(created.id), created);
    } finally {
      await second.close();
    }
  });

  it('name the event of every audit entry written before entries carried it (migration 9)', async () => {
    const path = freshDatabasePath();
    withRawDatabase(path, (db) => {
      migrate(db, sqliteMigrations.slice(0, 8));
      const record = db.prepare(
        `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes)
         VALUES ('cli', ?, ?, '1', ?, '[]')`,
      );
      record.run('create', 'users', '1');
      record.run('expire', 'subscriptions', '1');
      record.run('revoke', 'api-keys', null);
    });
    const store = openSqliteStore({ path });
    try {
      const entries = await store.listAuditEvents({ limit: 10 });
      assert.deepEqual(
        entries.map((e) => e.eventType),
        ['user.created', 'subscription.expired', null],
      );
      const events = await store.listAuditEvents({ limit: 10, eventTypes: ['subscription.expired'] });
      assert.deepEqual(
        events.map((e) => e.action),
        ['expire'],
      );
    } finally {
      await store.close();
    }
  });

  it('are not run again when an up-to-date file is opened', async () => {
    const path = await migratedDatabasePath();
    const readMigrations = () =>
      withRawDatabase(path, (db) => db.prepare('SELECT * FROM schema_migrations ORDER BY version').all());
    const before = readMigrations();
    await openSqliteStore({ path }).close();
    assert.deepEqual(readMigrations(), before);
  });

  it('refuse a file whose schema is newer than this release knows, saying so', async () => {
    const path = await migratedDatabasePath();
    withRawDatabase(path, (db) =>
      db
        .prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)')
        .run(LATEST_VERSION + 1, 'from the future'),
    );
    let store: Store | undefined;
    assert.throws(
      () => {
        store = openSqliteStore({ path });
      },
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, /newer/);
        assert.match(error.message, new RegExp(`\\b${LATEST_VERSION + 1}\\b`));
        return true;
      },
    );
    await store?.close();
  });

  it('leave the data of a file with a newer schema intact', async () => {
    const path = freshDatabasePath();
    const store = openSqliteStore({ path });
    const created = await store.createUser(
      {
        email: 'future@example.com',
        passwordHash: null,
        fields: toUserFields({ familyName: 'Future' }),
        newsletters: [],
      },
      AUDIT,
    );
    await store.close();
    withRawDatabase(path, (db) =>
      db
        .prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)')
        .run(LATEST_VERSION + 1, 'from the future'),
    );
    const snapshot = () =>
      withRawDatabase(path, (db) => ({
        users: db.prepare('SELECT id, email, family_name FROM users ORDER BY id').all(),
        migrations: db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
      }));
    const before = snapshot();
    assert.throws(() => openSqliteStore({ path }));
    assert.deepEqual(snapshot(), before);
    assert.deepEqual(before.users, [{ id: Number(created.id), email: 'future@example.com', family_name: 'Future' }]);
  });
});

describe('SQLite schema', () => {
  it('has exactly one users column for every profile field', async () => {
    const path = await migratedDatabasePath();
    const columns = withRawDatabase(path, (db) =>
      (db.prepare('PRAGMA table_info(users)').all() as { name: string }[]).map((c) => c.name),
    );
    assert.equal(new Set(USER_COLUMNS).size, USER_COLUMNS.length, 'no two fields share a column');
    for (const column of USER_COLUMNS) {
      assert.equal(columns.filter((c) => c === column).length, 1, `users.${column}`);
    }
  });

  it('refuses a user with a blank family_name', async () => {
    const path = await migratedDatabasePath();
    withRawDatabase(path, (db) => {
      const [sql, params] = insertUserSql('   ');
      assert.throws(() => db.prepare(sql).run(...params), { code: 'SQLITE_CONSTRAINT_CHECK' });
    });
  });

  it('refuses a subscription whose license is outside the enumeration', async () => {
    const path = await migratedDatabasePath();
    withRawDatabase(path, (db) => {
      const [sql, params] = insertUserSql('Reader');
      const userId = db.prepare(sql).run(...params).lastInsertRowid;
      assert.throws(
        () =>
          db
            .prepare('INSERT INTO subscriptions (user_id, date_started, license, trial) VALUES (?, ?, ?, 0)')
            .run(userId, 1_735_689_600, 'corporate'),
        { code: 'SQLITE_CONSTRAINT_CHECK' },
      );
    });
  });

  it('refuses a subscription for a user that does not exist', async () => {
    const path = await migratedDatabasePath();
    withRawDatabase(path, (db) => {
      assert.throws(
        () =>
          db
            .prepare('INSERT INTO subscriptions (user_id, date_started, trial) VALUES (?, ?, 0)')
            .run(999_999, 1_735_689_600),
        { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
      );
    });
  });

  it('leaves no newsletter or subscription rows of an erased user', async () => {
    const path = freshDatabasePath();
    const store = openSqliteStore({ path });
    const user = await store.createUser(
      {
        email: 'erased@example.com',
        passwordHash: null,
        fields: toUserFields({ familyName: 'Erased' }),
        newsletters: ['daily', 'weekly'],
      },
      AUDIT,
    );
    await store.createSubscription(
      user.id,
      {
        dateStarted: 1_735_689_600,
        dateEnded: null,
        externalIdentifier: null,
        license: null,
        resource: null,
        trial: false,
        productId: null,
      },
      AUDIT,
    );
    await store.deleteUser(user.id, AUDIT);
    await store.close();
    const left = withRawDatabase(path, (db) => ({
      newsletters: db.prepare('SELECT count(*) AS n FROM user_newsletters WHERE user_id = ?').get(user.id),
      subscriptions: db.prepare('SELECT count(*) AS n FROM subscriptions WHERE user_id = ?').get(user.id),
    }));
    assert.deepEqual(left, { newsletters: { n: 0 }, subscriptions: { n: 0 } });
  });
});

describe('the SQLite files', () => {
  it('are readable by their owner only: the folder 0700, the database, its log and shared memory 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'circulation-sqlite-modes-'));
    tempDirs.push(dir);
    const path = join(dir, 'new', 'circulation.db');
    const store = openSqliteStore({ path });
    try {
      await store.createUser(
        { email: 'modes@example.com', passwordHash: null, fields: { familyName: 'M' }, newsletters: [] },
        AUDIT,
      );
      const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);
      assert.deepEqual(
        [mode(join(dir, 'new')), mode(path), mode(`${path}-wal`), mode(`${path}-shm`)],
        ['700', '600', '600', '600'],
      );
    } finally {
      await store.close();
    }
  });
});

describe('SQLite query plans', () => {
  /** The SQL and arguments of the list query the store runs for `query`. */
  function listQueryOf(path: string, query: Parameters<Store['listUsers']>[0]) {
    return queryOf(path, (store) => store.listUsers(query));
  }

  /**
   * The SQL and arguments of the one query `read` runs: better-sqlite3's `prepare` is watched
   * while the store prepares it, so the plan checked is the real one.
   */
  async function queryOf(path: string, read: (store: Store) => Promise<unknown>) {
    const prototype = Database.prototype as unknown as { prepare: (sql: string) => Database.Statement };
    const prepare = prototype.prepare;
    const seen: { sql: string; args: unknown[] }[] = [];
    prototype.prepare = function (this: Database.Database, sql: string) {
      const statement = prepare.call(this, sql);
      const all = statement.all.bind(statement);
      (statement as { all: (...args: unknown[]) => unknown[] }).all = (...args: unknown[]) => {
        seen.push({ sql, args });
        return all(...args);
      };
      return statement;
    };
    // Opened while prepare is watched: some statements are prepared as the store opens.
    const store = openSqliteStore({ path });
    try {
      await read(store);
    } finally {
      prototype.prepare = prepare;
      await store.close();
    }
    assert.equal(seen.length, 1, 'the read runs one query');
    return seen[0]!;
  }

  function planOf(path: string, sql: string, args: unknown[]): string[] {
    return withRawDatabase(path, (db) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail),
    );
  }

  it('finds users by domain through an index, without scanning users', async () => {
    const path = await migratedDatabasePath();
    const { sql, args } = await listQueryOf(path, { email: { domain: 'example.com' }, offset: 0, limit: 100 });
    const plan = planOf(path, sql, args);
    assert.ok(!plan.some((d) => /^SCAN users\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /^SEARCH users USING (COVERING )?INDEX \S+ \(email_domain=\?/.test(d)),
      plan.join('\n'),
    );
  });

  it('finds users by circulationNumber through an index, without scanning users', async () => {
    const path = await migratedDatabasePath();
    const { sql, args } = await listQueryOf(path, { circulationNumber: 'C-1', offset: 0, limit: 100 });
    const plan = planOf(path, sql, args);
    assert.ok(!plan.some((d) => /^SCAN users\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /^SEARCH users USING (COVERING )?INDEX \S+ \(circulation_number=\?/.test(d)),
      plan.join('\n'),
    );
  });

  it('finds the events of one type through their index, without scanning the audit trail', async () => {
    const path = await migratedDatabasePath();
    const { sql, args } = await queryOf(path, (store) =>
      store.listAuditEvents({ limit: 101, eventTypes: ['subscription.expired'] }),
    );
    const plan = planOf(path, sql, args);
    assert.ok(!plan.some((d) => /^SCAN audit_log\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /^SEARCH audit_log USING INDEX audit_log_event_type/.test(d)),
      plan.join('\n'),
    );
  });

  it("reads each user's first subscriptions for include through the (user_id, id) index, not all of them", async () => {
    const path = await migratedDatabasePath();
    const { sql, args } = await queryOf(path, (store) => store.listSubscriptionsOfUsers(['1', '2'], 21));
    const plan = planOf(path, sql, args);
    assert.ok(!plan.some((d) => /^SCAN subscriptions\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /SEARCH subscriptions USING .*INDEX subscriptions_user \(user_id=\?\)/.test(d)),
      plan.join('\n'),
    );
  });
});
