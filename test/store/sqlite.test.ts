/**
 * The SQLite adapter: the store contract over a fresh file database, and what only SQLite has —
 * its migrations, its schema's own refusals, and the indexes its filters use.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runOf } from '../../src/domain/delivery.js';
import { EVENT_TYPES } from '../../src/domain/events.js';
import { parseDate } from '../../src/domain/publication.js';
import { reportWeeks } from '../../src/domain/report.js';
import { SIMILAR_CANDIDATES, searchRange } from '../../src/domain/search.js';
import { toUserFields } from '../../src/domain/user.js';
import { PAGE_READ_LIMIT, USER_COLUMNS, userPageIds } from '../../src/store/sql/users.js';
import type { Store } from '../../src/store/port.js';
import { sqliteMigrations } from '../../src/store/sqlite/migrations.js';
import { CLEAR, MARK, MARKING_RANGE } from '../../src/store/sqlite/products.js';
import { migrate, openSqliteStore } from '../../src/store/sqlite/open.js';
import { fillUserCompactKeys, SIMILAR_NAMES_SQL, similarMatch } from '../../src/store/sqlite/users.js';
import { AUDIT, subscriptionValues } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { DATA_VERSION_MAX_AGE_MS } from '../../src/store/sqlite/database.js';
import { parseAddress } from '../../src/domain/site-licence.js';
import { storeContract } from './contract.js';
import { freshDatabasePath } from '../support/sqlite-files.js';
import { today } from '../support/print.js';

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

/** The emails of the users a search for `q` finds (with the names one typo away, when `similar`). */
async function emailsFound(store: Store, q: string, similar = false): Promise<string[]> {
  const search = searchRange(q);
  const page = await store.users.list({
    search: similar ? search : { ...search!, similar: undefined },
    offset: 0,
    limit: 10,
  });
  return page.users.map((u) => u.email);
}

const LATEST_VERSION = sqliteMigrations.at(-1)!.version;

/** The plan SQLite makes for a statement, line by line. */
function planOf(path: string, sql: string, args: unknown[]): string[] {
  return withRawDatabase(path, (db) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail),
  );
}

storeContract('SQLite', (options) => openSqliteStore({ path: freshDatabasePath(), ...options }));

/**
 * The statements a store on `path` runs (through `methods`) during `call`, with their arguments:
 * better-sqlite3's `prepare` is watched while the store opens and prepares them, so a plan checked
 * is the real one. What the store runs as it opens is not kept.
 */
async function statementsRunBy(
  path: string,
  call: (store: Store) => Promise<unknown>,
  methods: readonly ('all' | 'get')[],
): Promise<{ sql: string; args: unknown[] }[]> {
  const prototype = Database.prototype as unknown as { prepare: (sql: string) => Database.Statement };
  const prepare = prototype.prepare;
  const seen: { sql: string; args: unknown[] }[] = [];
  prototype.prepare = function (this: Database.Database, sql: string) {
    const statement = prepare.call(this, sql);
    for (const method of methods) {
      const run = (statement[method] as (...args: unknown[]) => unknown).bind(statement);
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        seen.push({ sql, args });
        return run(...args);
      };
    }
    return statement;
  };
  // The long counts read on this thread, where their statements are seen.
  const store = openSqliteStore({ path, longReadsOffLoop: false });
  seen.length = 0;
  try {
    await call(store);
  } finally {
    prototype.prepare = prepare;
    await store.close();
  }
  return seen;
}

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
    const created = await first.users.create(
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
      assert.deepEqual(await second.users.get(created.id), created);
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
      const entries = await store.audit.list({ limit: 10 });
      assert.deepEqual(
        entries.map((e) => e.eventType),
        ['user.created', 'subscription.expired', null],
      );
      const events = await store.audit.list({ limit: 10, eventTypes: ['subscription.expired'] });
      assert.deepEqual(
        events.map((e) => e.action),
        ['expire'],
      );
    } finally {
      await store.close();
    }
  });

  it("compute the names' keys anew, their compact keys, and their trigrams for the users there were (24, 25)", async () => {
    const path = freshDatabasePath();
    withRawDatabase(path, (db) => {
      migrate(db, sqliteMigrations.slice(0, 23));
      const insert = db.prepare(
        `INSERT INTO users (email, email_lower, email_domain, family_name, family_key, given_name, given_key)
         VALUES (?, ?, 'old.example', ?, ?, ?, ?)`,
      );
      insert.run('a@old.example', 'a@old.example', 'Ødegaard', 'ødegaard', 'Martin', 'martin');
      insert.run('b@old.example', 'b@old.example', "O'Brien", "o'brien", 'Jean-Luc', 'jean-luc');
    });
    const store = openSqliteStore({ path });
    try {
      assert.deepEqual(await emailsFound(store, 'odegaard'), ['a@old.example']);
      assert.deepEqual(await emailsFound(store, 'obrien'), ['b@old.example']);
      assert.deepEqual(await emailsFound(store, 'jeanluc'), ['b@old.example']);
      assert.deepEqual(await emailsFound(store, 'odegard', true), ['a@old.example']);
    } finally {
      await store.close();
    }
  });

  it('register every product and newsletter id in use as a record named after it (migration 11)', async () => {
    const path = freshDatabasePath();
    withRawDatabase(path, (db) => {
      migrate(db, sqliteMigrations.slice(0, 10));
      const [sql, params] = insertUserSql('Before');
      const userId = db.prepare(sql).run(...params).lastInsertRowid;
      const subscribe = db.prepare(
        'INSERT INTO subscriptions (user_id, date_started, trial, product_id) VALUES (?, 0, 0, ?)',
      );
      subscribe.run(userId, 'legacy product');
      subscribe.run(userId, 'legacy product');
      subscribe.run(userId, null);
      db.prepare('INSERT INTO user_newsletters (user_id, newsletter_id) VALUES (?, ?)').run(userId, 'legacy/news');
    });
    const store = openSqliteStore({ path });
    try {
      const product = await store.products.get('legacy product', 0);
      assert.deepEqual([product?.product.name, product?.product.active], ['legacy product', true]);
      assert.deepEqual(
        (await store.newsletters.list({ limit: 10 })).map((n) => [n.id, n.name]),
        [['legacy/news', 'legacy/news']],
      );
      await assert.rejects(store.products.delete('legacy product', AUDIT), { code: 'STILL_REFERENCED' });
    } finally {
      await store.close();
    }
  });

  it('queue the deliveries made before by their user, keeping their order (migration 12)', async () => {
    const path = freshDatabasePath();
    withRawDatabase(path, (db) => {
      migrate(db, sqliteMigrations.slice(0, 11));
      db.prepare(
        `INSERT INTO webhooks (url, events, secret_salt) VALUES ('http://127.0.0.1:9/', '["user.created","user.updated"]', 's')`,
      ).run();
      const record = db.prepare(
        `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type)
         VALUES ('cli', ?, 'users', '1', '1', '[]', ?)`,
      );
      record.run('create', 'user.created');
      record.run('update', 'user.updated');
    });
    const store = openSqliteStore({ path });
    try {
      const claimed = await store.webhooks.claimDeliveries(Date.now(), 60_000, 10);
      assert.deepEqual(
        claimed.map((c) => [c.delivery.eventType, c.delivery.userId]),
        [['user.created', '1']],
      );
    } finally {
      await store.close();
    }
  });

  describe('rebuilding users without the check of a blank family name (migration 32)', () => {
    /** Everything of the schema but the users table's own statement, which alone changes. */
    const schemaBesideUsers = (db: Database.Database) =>
      db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'users' ORDER BY type, name").all();
    /** Each table's rows, in one order (the names' trigram index by the ids it is keyed by). */
    const rowsOf = (db: Database.Database) =>
      Object.fromEntries(
        [
          'users',
          'subscriptions',
          'user_newsletters',
          'newsletter_consents',
          'holds',
          'password_reset_tokens',
          'users_names',
        ].map((table) => [
          table,
          db.prepare(`SELECT ${table === 'users_names' ? 'rowid, names' : '*'} FROM ${table} ORDER BY 1, 2`).all(),
        ]),
      );
    const read = (path: string) =>
      withRawDatabase(path, (db) => ({
        schema: schemaBesideUsers(db),
        columns: db.prepare('PRAGMA table_xinfo(users)').all(),
        indexes: db.prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'users' AND type <> 'table'").all(),
        references: db
          .prepare(
            `SELECT m.name, f."from", f."to", f.on_delete FROM sqlite_master m, pragma_foreign_key_list(m.name) f
             WHERE f."table" = 'users' ORDER BY m.name`,
          )
          .all(),
        sequence: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'users'").get(),
        rows: rowsOf(db),
      }));

    let path: string;
    let atVersion31: ReturnType<typeof read>;
    let atVersion32: ReturnType<typeof read>;
    let store: Store;
    before(async () => {
      path = freshDatabasePath();
      withRawDatabase(path, (db) => {
        migrate(db, sqliteMigrations.slice(0, 31));
        const insert = db.prepare(
          `INSERT INTO users (email, email_lower, email_domain, family_name, given_name, demographics)
           VALUES (?, lower(?), 'old.example', ?, ?, ?)`,
        );
        insert.run('Ann@old.example', 'Ann@old.example', 'Ødegaard', 'Martin', '{"recommendations":["a"]}');
        insert.run('bo@old.example', 'bo@old.example', "O'Brien", 'Jean-Luc', null);
        insert.run('gone@old.example', 'gone@old.example', 'Gone', null, null);
        // The last id given was erased: AUTOINCREMENT never gives it again.
        db.prepare("DELETE FROM users WHERE email = 'gone@old.example'").run();
        fillUserCompactKeys(db);
        db.prepare("INSERT INTO newsletters (id, name) VALUES ('daily', 'Daily')").run();
        db.prepare("INSERT INTO user_newsletters (user_id, newsletter_id) VALUES (1, 'daily'), (2, 'daily')").run();
        db.prepare(
          `INSERT INTO newsletter_consents (user_id, newsletter_id, state, source, changed_at)
           VALUES (1, 'daily', 'subscribed', 'api', 0)`,
        ).run();
        const subscribe = db.prepare(
          'INSERT INTO subscriptions (user_id, date_started, trial, resource) VALUES (?, 0, 0, ?)',
        );
        subscribe.run(1, 'print');
        subscribe.run(2, 'online');
        db.prepare(
          `INSERT INTO holds (user_id, subscription_id, start_date, end_date, compensation, deliveries_missed)
           VALUES (1, 1, 20000, 20001, 'extend', 2)`,
        ).run();
        db.prepare(
          "INSERT INTO password_reset_tokens (user_id, token_hash, created_at, expires_at) VALUES (1, x'00', 0, 1)",
        ).run();
      });
      atVersion31 = read(path);
      // Compared at 32, so that later migrations (which add columns, tables and indexes) do not count.
      withRawDatabase(path, (db) => migrate(db, sqliteMigrations.slice(0, 32)));
      atVersion32 = read(path);
      store = openSqliteStore({ path, longReadsOffLoop: false });
    });
    after(() => store?.close());

    it('keeps every row of users and of the tables that refer to it, and the ids still to come', () => {
      assert.deepEqual(atVersion32.rows, atVersion31.rows);
      assert.deepEqual(atVersion32.sequence, { seq: 3 });
    });

    it('keeps every column, index, trigger and reference to users as they were', () => {
      assert.deepEqual(atVersion32.columns, atVersion31.columns);
      assert.deepEqual(atVersion32.indexes, atVersion31.indexes);
      assert.deepEqual(atVersion32.references, atVersion31.references);
      assert.deepEqual(atVersion32.schema, atVersion31.schema);
      assert.equal(atVersion32.indexes.length, 10, 'seven indexes and three triggers');
    });

    it('leaves a file whose references and pages hold, with foreign keys enforced again', () => {
      withRawDatabase(path, (db) => {
        assert.deepEqual(db.pragma('foreign_key_check'), []);
        assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
        const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'users'").get() as { sql: string }).sql;
        assert.doesNotMatch(sql, /trim\(family_name\)/);
        assert.match(sql, /family_name TEXT NOT NULL,/);
      });
      assert.equal(
        withRawDatabase(path, (db) => db.pragma('foreign_keys', { simple: true })),
        1,
        'the connection the store migrated on enforces them again',
      );
    });

    it('finds the readers there were by their names, and by a name one typo away', async () => {
      assert.deepEqual(await emailsFound(store, 'odegaard'), ['Ann@old.example']);
      assert.deepEqual(await emailsFound(store, 'obrien'), ['bo@old.example']);
      assert.deepEqual(await emailsFound(store, 'jeanluc'), ['bo@old.example']);
      assert.deepEqual(await emailsFound(store, 'odegard', true), ['Ann@old.example']);
    });

    it("erases a reader's subscriptions, holds and newsletters with them, and gives the next reader a new id", async () => {
      assert.equal(await store.users.delete('2', AUDIT), true);
      const created = await store.users.create(
        { email: 'new@example.com', passwordHash: null, fields: { familyName: '' }, newsletters: [] },
        AUDIT,
      );
      assert.equal(created.id, '4');
      assert.equal(created.fields.familyName, '');
      withRawDatabase(path, (db) => {
        const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
        assert.equal(count('SELECT count(*) AS n FROM subscriptions WHERE user_id = 2'), 0);
        assert.equal(count('SELECT count(*) AS n FROM user_newsletters WHERE user_id = 2'), 0);
        assert.equal(count('SELECT count(*) AS n FROM users_names WHERE rowid = 2'), 0);
        assert.equal(count('SELECT count(*) AS n FROM subscriptions WHERE user_id = 1'), 1);
        assert.equal(count('SELECT count(*) AS n FROM holds WHERE user_id = 1'), 1);
      });
    });

    it('turns foreign keys off only while it rebuilds, on a connection that had them on', () => {
      const db = new Database(':memory:');
      try {
        db.pragma('foreign_keys = ON');
        migrate(db, sqliteMigrations.slice(0, 31));
        migrate(db, sqliteMigrations);
        assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
        const off = new Database(':memory:');
        off.pragma('foreign_keys = OFF');
        migrate(off, sqliteMigrations);
        assert.equal(off.pragma('foreign_keys', { simple: true }), 0);
        off.close();
      } finally {
        db.close();
      }
    });
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
    const created = await store.users.create(
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

describe("SQLite site keys kept for the access checks: licensed domains, ranges' prefix lengths", () => {
  const now = Math.floor(Date.now() / 1000);
  const newUser = (store: Store, email: string) =>
    store.users.create({ email, passwordHash: null, fields: { familyName: 'R' }, newsletters: [] }, AUDIT);

  it('reads a licence another connection adds to the file once the data version is read again', async () => {
    const path = freshDatabasePath();
    const checking = openSqliteStore({ path });
    const writing = openSqliteStore({ path });
    try {
      const owner = await newUser(writing, 'owner@owner.example');
      const first = await writing.subscriptions.create(
        owner.id,
        subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60, emailDomains: ['a.example'] }),
        AUDIT,
      );
      assert.ok(first);
      const reader = await newUser(checking, 'r@b.example');
      // Kept now: a domain is licensed, but not the reader's.
      assert.deepEqual((await checking.siteLicences.readerSourcesOf(reader.id, now))?.byDomain, []);
      const second = await writing.subscriptions.create(
        owner.id,
        subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60, emailDomains: ['b.example'] }),
        AUDIT,
      );
      assert.ok(second);
      await eventually(
        async () => (await checking.siteLicences.readerSourcesOf(reader.id, now))?.byDomain[0]?.id === second.id,
        "the licence, within a few checks past the data version's age",
        DATA_VERSION_MAX_AGE_MS + 1_900,
      );
    } finally {
      await checking.close();
      await writing.close();
    }
  });

  it('finds an address in a range of a prefix length another connection adds, once the data version is read again', async () => {
    const path = freshDatabasePath();
    const checking = openSqliteStore({ path });
    const writing = openSqliteStore({ path });
    const addressOf = (text: string) => {
      const parsed = parseAddress(text);
      assert.ok(parsed.ok);
      return parsed.value;
    };
    const licence = (ipRanges: string[]) =>
      subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60, ipRanges });
    try {
      const owner = await newUser(writing, 'owner@owner.example');
      const first = await writing.subscriptions.create(owner.id, licence(['198.51.100.0/24']), AUDIT);
      assert.ok(first);
      // Kept now: ranges of /24 alone.
      assert.deepEqual(
        await checking.siteLicences.ofNetwork(addressOf('198.51.100.7'), now).then((l) => l.map((x) => x.id)),
        [first.id],
      );
      const second = await writing.subscriptions.create(owner.id, licence(['198.48.0.0/13']), AUDIT);
      assert.ok(second);
      await eventually(
        async () => (await checking.siteLicences.ofNetwork(addressOf('198.50.1.1'), now))[0]?.id === second.id,
        "the licence, within a few checks past the data version's age",
        DATA_VERSION_MAX_AGE_MS + 1_900,
      );
    } finally {
      await checking.close();
      await writing.close();
    }
  });
});

describe('SQLite counts as long as a table', () => {
  /** The statements prepared on this thread's connections while `call` runs on a store of `path`. */
  async function preparedHereBy(
    longReadsOffLoop: boolean,
    call: (store: Store) => Promise<unknown>,
  ): Promise<string[]> {
    const store = openSqliteStore({ path: await migratedDatabasePath(), longReadsOffLoop });
    const prototype = Database.prototype as unknown as { prepare: (sql: string) => Database.Statement };
    const prepare = prototype.prepare;
    const seen: string[] = [];
    prototype.prepare = function (this: Database.Database, sql: string) {
      seen.push(sql);
      return prepare.call(this, sql);
    };
    try {
      await call(store);
    } finally {
      prototype.prepare = prepare;
      await store.close();
    }
    return seen;
  }
  const countDraw = (store: Store) => store.deliveries.countDraw(runOf(parseDate('2026-12-01')!, 'UTC'));

  it("count the draw report on the worker's connection, not on the one requests are served from", async () => {
    assert.deepEqual(await preparedHereBy(true, countDraw), []);
    // The same count on this thread is seen, so the empty list above is not the watch's failure.
    assert.equal((await preparedHereBy(false, countDraw)).length, 2);
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

  it('takes a user with a blank family_name, which only the API refuses (migration 32)', async () => {
    const path = await migratedDatabasePath();
    withRawDatabase(path, (db) => {
      const [sql, params] = insertUserSql('');
      assert.equal(db.prepare(sql).run(...params).changes, 1);
      const [nullSql, nullParams] = insertUserSql(null as unknown as string, 'null@example.com');
      assert.throws(() => db.prepare(nullSql).run(...nullParams), { code: 'SQLITE_CONSTRAINT_NOTNULL' });
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

  it('refuses, as foreign keys would, a reference to a product or newsletter that does not exist', async () => {
    const path = await migratedDatabasePath();
    withRawDatabase(path, (db) => {
      const [sql, params] = insertUserSql('Reader');
      const userId = db.prepare(sql).run(...params).lastInsertRowid;
      assert.throws(
        () =>
          db
            .prepare('INSERT INTO subscriptions (user_id, date_started, trial, product_id) VALUES (?, 0, 0, ?)')
            .run(userId, 'nowhere'),
        { code: 'SQLITE_CONSTRAINT_TRIGGER', message: /FOREIGN KEY constraint failed/ },
      );
      assert.throws(
        () => db.prepare('INSERT INTO user_newsletters (user_id, newsletter_id) VALUES (?, ?)').run(userId, 'nowhere'),
        { code: 'SQLITE_CONSTRAINT_TRIGGER' },
      );
      db.prepare("INSERT INTO products (id, name) VALUES ('kept', 'Kept')").run();
      const subscription = db
        .prepare("INSERT INTO subscriptions (user_id, date_started, trial, product_id) VALUES (?, 0, 0, 'kept')")
        .run(userId).lastInsertRowid;
      assert.throws(
        () => db.prepare('UPDATE subscriptions SET product_id = ? WHERE id = ?').run('nowhere', subscription),
        {
          code: 'SQLITE_CONSTRAINT_TRIGGER',
        },
      );
      assert.throws(() => db.prepare("DELETE FROM products WHERE id = 'kept'").run(), {
        code: 'SQLITE_CONSTRAINT_TRIGGER',
      });
      assert.throws(() => db.prepare("UPDATE products SET id = 'moved' WHERE id = 'kept'").run(), {
        code: 'SQLITE_CONSTRAINT_TRIGGER',
      });
    });
  });

  it('leaves no newsletter or subscription rows of an erased user', async () => {
    const path = freshDatabasePath();
    const store = openSqliteStore({ path });
    const user = await store.users.create(
      {
        email: 'erased@example.com',
        passwordHash: null,
        fields: toUserFields({ familyName: 'Erased' }),
        newsletters: ['daily', 'weekly'],
      },
      AUDIT,
    );
    await store.subscriptions.create(
      user.id,
      {
        dateStarted: 1_735_689_600,
        dateEnded: null,
        externalIdentifier: null,
        license: null,
        resource: null,
        trial: false,
        productId: null,
        deliveryDays: null,
        ipRanges: [],
        emailDomains: [],
        seats: null,
      },
      AUDIT,
    );
    await store.users.delete(user.id, AUDIT);
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
    const dir = dirname(freshDatabasePath());
    const path = join(dir, 'new', 'circulation.db');
    const store = openSqliteStore({ path });
    try {
      await store.users.create(
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

describe("SQLite marks of a product's subscriptions when it starts or stops giving print (migration 38)", () => {
  const PRODUCT = 'site';
  const SUBSCRIPTIONS = MARKING_RANGE * 2 + 10;
  let path: string;
  let store: Store;
  before(async () => {
    path = await migratedDatabasePath();
    withRawDatabase(path, (db) =>
      db.exec(`
        INSERT INTO products (id, name, resource) VALUES ('${PRODUCT}', 'Site', 'online');
        WITH RECURSIVE i (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < ${SUBSCRIPTIONS})
        INSERT INTO users (email, email_lower, email_domain, family_name)
          SELECT 'u' || x || '@d.example', 'u' || x || '@d.example', 'd.example', 'Reader' FROM i;
        INSERT INTO subscriptions (user_id, date_started, trial, product_id) SELECT id, 0, 0, '${PRODUCT}' FROM users;`),
    );
    store = openSqliteStore({ path, longReadsOffLoop: false });
  });
  after(() => store?.close());

  const marks = () =>
    withRawDatabase(path, (db) =>
      db
        .prepare('SELECT gives_print AS mark, count(*) AS n FROM subscriptions WHERE product_id = ? GROUP BY 1')
        .all(PRODUCT),
    );
  const markingCount = () =>
    withRawDatabase(path, (db) => db.prepare('SELECT marking_print FROM products WHERE id = ?').pluck().get(PRODUCT));

  it('marks every one a range at a time, the event loop free between, and one written meanwhile as giving print', async () => {
    let changed = false;
    const changing = store.products.update(PRODUCT, { resource: 'print' }, AUDIT).then(() => {
      changed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(changed, false, 'the change is still marking its subscriptions');
    assert.equal(markingCount(), 1);
    const user = await store.users.create(
      { email: 'meanwhile@d.example', passwordHash: null, fields: { familyName: 'Reader' }, newsletters: [] },
      AUDIT,
    );
    const written = await store.subscriptions.create(
      user.id,
      subscriptionValues({ resource: null, productId: PRODUCT, dateEnded: null }),
      AUDIT,
    );
    const markOf = (id: string) =>
      withRawDatabase(path, (db) => db.prepare('SELECT gives_print FROM subscriptions WHERE id = ?').pluck().get(id));
    assert.equal(markOf(written!.id), 1, 'written while the product was marking');
    await changing;
    assert.deepEqual(marks(), [{ mark: 1, n: SUBSCRIPTIONS + 1 }]);
    assert.equal(markingCount(), 0);
  });

  for (const [name, statement] of [
    ['marks', MARK],
    ['clears', CLEAR],
  ] as const) {
    it(`${name} a range by the table's own key, not by the product's index, which holds all its subscriptions`, () => {
      const args = [{ id: PRODUCT, after: 0, upTo: MARKING_RANGE }];
      const plan = planOf(path, statement, args);
      assert.ok(
        plan.some((d) => /^SEARCH subscriptions USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/.test(d)),
        plan.join('\n'),
      );
    });
  }

  it('clears every mark once it stops', async () => {
    await store.products.update(PRODUCT, { resource: 'online' }, AUDIT);
    assert.deepEqual(marks(), [{ mark: 0, n: SUBSCRIPTIONS + 1 }]);
  });

  it('counts down its marking when the change is refused at its end, another having changed the product meanwhile', async () => {
    const { version } = (await store.products.get(PRODUCT, 0))!.product;
    const changing = store.products.update(PRODUCT, { resource: 'print' }, AUDIT, [version]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(markingCount(), 1);
    await store.products.update(PRODUCT, { name: 'Renamed' }, AUDIT);
    await assert.rejects(changing, (error: { code?: string }) => error.code === 'PRECONDITION_FAILED');
    // A refused call answers before its turn commits; the count goes down in that commit.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(markingCount(), 0);
  });
});

describe('SQLite query plans', () => {
  /** The SQL and arguments of the list query the store runs for `query`. */
  function listQueryOf(path: string, query: Parameters<Store['users']['list']>[0]) {
    return queryOf(path, (store) => store.users.list(query));
  }

  /** The SQL and arguments of the one query `read` runs, as the store prepares it. */
  async function queryOf(path: string, read: (store: Store) => Promise<unknown>) {
    const seen = await statementsRunBy(path, read, ['all']);
    assert.equal(seen.length, 1, 'the read runs one query');
    return seen[0]!;
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
      store.audit.list({ limit: 101, eventTypes: ['subscription.expired'] }),
    );
    const plan = planOf(path, sql, args);
    assert.ok(!plan.some((d) => /^SCAN audit_log\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /^SEARCH audit_log USING INDEX audit_log_event_type/.test(d)),
      plan.join('\n'),
    );
  });

  it("reads a user's events newest first from the user's index, past the cursor, without scanning the trail", async () => {
    const path = await migratedDatabasePath();
    const { sql, args } = await queryOf(path, (store) =>
      store.audit.list({ limit: 21, userId: '7', eventTypes: EVENT_TYPES, descending: true, afterId: '500' }),
    );
    const plan = planOf(path, sql, args);
    assert.ok(!plan.some((d) => /^SCAN audit_log\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /^SEARCH audit_log USING INDEX audit_log_user \(user_id=\? AND id<\?\)/.test(d)),
      plan.join('\n'),
    );
    assert.ok(!plan.some((d) => /TEMP B-TREE/.test(d)), plan.join('\n'));
  });

  it('walks a page of a run to come by the subscriptions it may deliver, in id order, and a past run by every one', async () => {
    const path = await migratedDatabasePath();
    const tomorrow = runOf(today() + 1, 'UTC');
    const yesterday = runOf(today() - 1, 'UTC');
    for (const [run, walk] of [
      [tomorrow, /^SEARCH s USING INDEX subscriptions_print_run \(id>\?\)/],
      [yesterday, /^SEARCH s USING INTEGER PRIMARY KEY \(rowid>\?\)/],
    ] as const) {
      const { sql, args } = await queryOf(path, (store) =>
        store.deliveries.listRendered(run, { limit: 101, afterId: '9' }),
      );
      const plan = planOf(path, sql, args);
      assert.ok(
        plan.some((d) => walk.test(d)),
        plan.join('\n'),
      );
      assert.ok(!plan.some((d) => /TEMP B-TREE/.test(d)), plan.join('\n'));
    }
  });

  it("reads a run's redeliveries once by their date, not from each subscription a page walks", async () => {
    const path = await migratedDatabasePath();
    const { sql, args } = await queryOf(path, (store) =>
      store.deliveries.listRendered(runOf(today() + 1, 'UTC'), { limit: 101, afterId: '9' }),
    );
    const plan = planOf(path, sql, args);
    const probes = plan.filter((d) => /^SEARCH c USING .*INDEX delivery_complaints_redelivery/.test(d));
    assert.deepEqual(
      probes,
      ['SEARCH c USING COVERING INDEX delivery_complaints_redelivery (redelivery_date=?)'],
      plan.join('\n'),
    );
  });

  it("reads each user's first subscriptions for include through the (user_id, id) index, not all of them", async () => {
    const path = await migratedDatabasePath();
    const { sql, args } = await queryOf(path, (store) => store.subscriptions.listOfUsers(['1', '2'], 21));
    const plan = planOf(path, sql, args);
    assert.ok(!plan.some((d) => /^SCAN subscriptions\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /SEARCH subscriptions USING .*INDEX subscriptions_user \(user_id=\?\)/.test(d)),
      plan.join('\n'),
    );
  });
});

describe('SQLite query plans of the catalogue filters at 20,000 users', () => {
  let path: string;
  const now = Math.floor(Date.now() / 1000);
  before(async () => {
    path = await migratedDatabasePath();
    withRawDatabase(path, (db) =>
      db.exec(`
        INSERT INTO products (id, name, resource) VALUES ('digital', 'Digital', 'online'), ('paper', 'Paper', 'print'),
          ('launch', 'Launch', 'print-online');
        INSERT INTO newsletters (id, name) VALUES ('daily', 'Daily'), ('weekly', 'Weekly');
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
        INSERT INTO users (email, email_lower, email_domain, family_name, circulation_number)
          SELECT 'u' || i || '@d' || (i % 400) || '.example', 'u' || i || '@d' || (i % 400) || '.example',
                 'd' || (i % 400) || '.example', 'Reader', 'C-' || i FROM n;
        INSERT INTO user_newsletters (user_id, newsletter_id)
          SELECT id, CASE id % 3 WHEN 0 THEN 'daily' ELSE 'weekly' END FROM users WHERE id % 3 < 2;
        WITH k(k) AS (VALUES (0), (1), (2))
        INSERT INTO subscriptions (user_id, date_started, date_ended, resource, product_id, trial, expired)
          SELECT id, ${now} - 200 * 86400, ${now} + (id % 400 - 100) * 86400,
                 CASE (id + k) % 4 WHEN 0 THEN 'print' WHEN 1 THEN 'online' WHEN 2 THEN 'print-online' END,
                 CASE k WHEN 0 THEN 'digital' WHEN 1 THEN 'paper' END, 0, (id + k) % 10 = 0
          FROM users, k;
        INSERT INTO subscriptions (user_id, date_started, pending_start, date_ended, resource, trial, expired)
          SELECT id, ${now} + (id % 30 + 1) * 86400, ${now} + (id % 30 + 1) * 86400, NULL, 'print-online', 0, 0
          FROM users;
        INSERT INTO subscriptions (user_id, date_started, pending_start, date_ended, resource, trial, expired)
          SELECT id, ${now} - 3600, ${now} - 3600, NULL, 'print', 0, 0 FROM users WHERE id % 1000 = 0;
        INSERT INTO subscriptions (user_id, date_started, pending_start, date_ended, product_id, trial, expired)
          SELECT id, ${now} + 20 * 86400, ${now} + 20 * 86400, NULL, 'launch', 0, 0 FROM users;
        ANALYZE;`),
    );
  });

  /** The plan of every statement the store runs for `call`, as the store prepares it. */
  async function plansOf(call: (store: Store) => Promise<unknown>): Promise<string[]> {
    const seen = await statementsRunBy(path, call, ['all', 'get']);
    assert.ok(seen.length > 0, 'the call ran no statement');
    return seen.flatMap(({ sql, args }) => planOf(path, sql, args));
  }

  /** Nothing large is scanned: every read of users, subscriptions and memberships is a search of an index. */
  function assertSeeks(plan: string[]): void {
    assert.ok(!plan.some((d) => /^SCAN (users|subscriptions|user_newsletters|s|m|n|u)\b/.test(d)), plan.join('\n'));
  }

  for (const [name, query, pattern] of [
    [
      'the members of a newsletter',
      { newsletter: 'weekly' },
      /SEARCH m USING COVERING INDEX user_newsletters_newsletter \(newsletter_id=\? AND user_id[<>]\?\)/,
    ],
    [
      'users with an active subscription giving print',
      { activeSubscription: { at: now, resource: 'print' } },
      /SEARCH s USING COVERING INDEX subscriptions_resource \(<expr>=\? AND expired=\? AND user_id[<>]\?\)/,
    ],
    [
      'users with an active subscription of a product',
      { activeSubscription: { at: now, product: 'paper' } },
      /SEARCH s USING COVERING INDEX subscriptions_product \(product_id=\? AND <expr>=\? AND expired=\? AND user_id[<>]\?\)/,
    ],
    [
      'users with any active subscription',
      { activeSubscription: { at: now } },
      /SEARCH s USING (COVERING )?INDEX subscriptions_user \(user_id[<>]\?\)/,
    ],
  ] as const) {
    it(`finds ${name} by a seek past the cursor, in either order`, async () => {
      for (const descending of [false, true]) {
        const plan = await plansOf((store) =>
          store.users.list({ ...query, afterId: '9000', descending, offset: 0, limit: 101 }),
        );
        assertSeeks(plan);
        assert.ok(
          plan.some((d) => pattern.test(d)),
          plan.join('\n'),
        );
      }
    });
  }

  it('finds the users with an active subscription giving print past the scheduled ones, by seeks', async () => {
    const plan = await plansOf((store) =>
      store.users.list({ activeSubscription: { at: now, resource: 'print' }, afterId: '9000', offset: 0, limit: 101 }),
    );
    assertSeeks(plan);
    assert.ok(
      plan.some((d) => /SEARCH s USING INDEX subscriptions_pending_start \(pending_start<\?\)/.test(d)),
      plan.join('\n'),
    );
  });

  it('finds the users with an active subscription giving print by one seek for each resource and each product giving it', async () => {
    // print and print-online; paper, and launch (whose subscriptions all start in 20 days), for
    // those of their subscriptions that name no resource, where one read of all those walked them.
    const plan = await plansOf((store) =>
      store.users.list({ activeSubscription: { at: now, resource: 'print' }, afterId: '9000', offset: 0, limit: 101 }),
    );
    const seeks = plan.filter((d) =>
      /^SEARCH s USING COVERING INDEX subscriptions_resource \(<expr>=\? AND expired=\? AND user_id>\?\)$/.test(d),
    );
    assert.equal(seeks.length, 4, plan.join('\n'));
  });

  it('finds a newsletter with an active subscription, and a domain with both, by seeks', async () => {
    const subscription = { at: now, resource: 'print' } as const;
    assertSeeks(
      await plansOf((store) =>
        store.users.list({
          newsletter: 'daily',
          activeSubscription: subscription,
          afterId: '9000',
          offset: 0,
          limit: 101,
        }),
      ),
    );
    assertSeeks(
      await plansOf((store) =>
        store.users.list({
          newsletter: 'daily',
          activeSubscription: subscription,
          email: { domain: 'd7.example' },
          offset: 0,
          limit: 101,
        }),
      ),
    );
  });

  for (const [name, call] of [
    ["counts a product's active subscriptions", (store: Store) => store.products.get('paper', now)],
    [
      'lists the users with an active subscription of a product',
      (store: Store) => store.users.list({ activeSubscription: { at: now, product: 'paper' }, offset: 0, limit: 101 }),
    ],
  ] as const) {
    it(`${name} by a range of its own and the starts that have come by theirs, without ANALYZE's statistics`, async () => {
      // As the service keeps its database: the planner then took the product's index for the
      // starts that have come, and read every subscription of the product (0.3 to 0.7 s at 1,000,000).
      const bare = await migratedDatabasePath();
      withRawDatabase(bare, (db) =>
        db.exec(`
          INSERT INTO products (id, name, resource) VALUES ('paper', 'Paper', 'print');
          INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ('a@b.example', 'a@b.example', 'b.example', 'B');
          INSERT INTO subscriptions (user_id, date_started, pending_start, product_id, trial, expired)
            VALUES (1, ${now} - 60, NULL, 'paper', 0, 0), (1, ${now} - 30, ${now} - 30, 'paper', 0, 0);`),
      );
      const seen = await statementsRunBy(bare, call, ['all', 'get']);
      const plan = seen.flatMap(({ sql, args }) => planOf(bare, sql, args));
      assert.ok(plan.includes('SEARCH s USING INDEX subscriptions_pending_start (pending_start<?)'), plan.join('\n'));
      assert.ok(
        plan.every((d) => !/subscriptions_product \(product_id=\?\)$/.test(d)),
        plan.join('\n'),
      );
    });
  }

  it('counts the dashboard report from indexes alone: the current subscriptions, and a range of starts and of ends per week', async () => {
    const plan = await plansOf((store) => store.reports.countSubscriptions(now, reportWeeks(now)));
    assert.ok(!plan.some((d) => /^SCAN (subscriptions|s)$/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /^(SCAN|SEARCH) s USING COVERING INDEX subscriptions_current\b/.test(d)),
      plan.join('\n'),
    );
    for (const column of ['date_started', 'date_ended']) {
      const range = new RegExp(
        `^SEARCH subscriptions USING COVERING INDEX subscriptions_\\w+ \\(${column}>\\? AND ${column}<\\?\\)`,
      );
      assert.equal(plan.filter((d) => range.test(d)).length, 12, plan.join('\n'));
    }
  });

  it("answers a user's access from the index of the user's own subscriptions alone, and each product's key", async () => {
    // User 277's subscriptions end 177 days from now.
    const plan = await plansOf((store) => store.subscriptions.activeOf('277', now));
    assertSeeks(plan);
    assert.ok(
      plan.some((d) => /^SEARCH s USING COVERING INDEX subscriptions_user \(user_id=\?\)/.test(d)),
      plan.join('\n'),
    );
    assert.ok(!plan.some((d) => /^SCAN p\b/.test(d)), plan.join('\n'));
    // A subscription's user exists (the foreign key), so the users are not read.
    assert.ok(!plan.some((d) => /^SEARCH (users|u)\b/.test(d)), plan.join('\n'));
  });

  it('reads the user by its key only when it has no active subscription, to tell it from no user', async () => {
    // User 77's subscriptions ended 23 days ago.
    const plan = await plansOf((store) => store.subscriptions.activeOf('77', now));
    assertSeeks(plan);
    assert.ok(plan.includes('SEARCH users USING INTEGER PRIMARY KEY (rowid=?)'), plan.join('\n'));
  });

  it("counts a product's active subscriptions and a newsletter's members from their indexes", async () => {
    const product = await plansOf((store) => store.products.get('paper', now));
    assertSeeks(product);
    // Those started, by the product's key of them; those whose start has come, by that start.
    for (const pattern of [
      /SEARCH s USING COVERING INDEX subscriptions_product \(product_id=\? AND <expr>=\? AND expired=\?\)/,
      /SEARCH s USING INDEX subscriptions_pending_start \(pending_start<\?\)/,
    ]) {
      assert.ok(
        product.some((d) => pattern.test(d)),
        product.join('\n'),
      );
    }
    const newsletter = await plansOf((store) => store.newsletters.get('daily'));
    assertSeeks(newsletter);
    assert.ok(
      newsletter.some((d) => /SEARCH n USING COVERING INDEX user_newsletters_newsletter \(newsletter_id=\?\)/.test(d)),
      newsletter.join('\n'),
    );
  });
});

describe('SQLite search keys (filter[q])', () => {
  it('are filled for the users there were when migration 19 adds them', async () => {
    const path = freshDatabasePath();
    withRawDatabase(path, (db) => {
      migrate(
        db,
        sqliteMigrations.filter((m) => m.version < 19),
      );
      const [insert, values] = insertUserSql('Éclair', 'before@example.com');
      db.prepare(insert).run(...values);
      db.prepare("UPDATE users SET given_name = 'Anaïs' WHERE email_lower = 'before@example.com'").run();
    });
    const store = openSqliteStore({ path });
    try {
      for (const q of ['ECLA', 'anais']) {
        const users = (await store.users.list({ search: searchRange(q), offset: 0, limit: 10 })).users;
        assert.deepEqual(
          users.map((u) => u.email),
          ['before@example.com'],
          q,
        );
      }
    } finally {
      await store.close();
    }
  });

  it('are kept for users brought in by an import', async () => {
    const store = openSqliteStore({ path: freshDatabasePath() });
    try {
      const [id] = await store.users.import(
        [
          {
            user: {
              email: 'imported@example.com',
              passwordHash: null,
              fields: { familyName: 'Ørsted' },
              newsletters: [],
            },
            subscriptions: [],
          },
        ],
        null,
      );
      const users = (await store.users.list({ search: searchRange('ørs'), offset: 0, limit: 10 })).users;
      assert.deepEqual(
        users.map((u) => u.id),
        [id],
      );
    } finally {
      await store.close();
    }
  });
});

describe('SQLite query plan of the search at 20,000 users', () => {
  let path: string;
  before(async () => {
    path = await migratedDatabasePath();
    withRawDatabase(path, (db) =>
      db.exec(`
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
        INSERT INTO users (email, email_lower, email_domain, family_name, family_key, given_name, given_key,
            circulation_number)
          SELECT 'u' || i || '@d' || (i % 400) || '.example', 'u' || i || '@d' || (i % 400) || '.example',
                 'd' || (i % 400) || '.example', 'Reader' || (i % 2000), 'reader' || (i % 2000),
                 'Given' || (i % 500), 'given' || (i % 500), 'C-' || i FROM n;
        ANALYZE;`),
    );
  });

  it('reads a range of each search index and the circulation number and id by equality, scanning no table', async () => {
    for (const more of [{}, { afterId: '9000' }, { afterId: '9000', descending: true }]) {
      for (const q of ['reader1234', '1234']) {
        const { text, values } = userPageIds({ search: searchRange(q), offset: 0, limit: 21, ...more }, 'sqlite', [], {
          limit: PAGE_READ_LIMIT,
        }).render('sqlite');
        const plan = planOf(path, text, values);
        assert.ok(!plan.some((d) => /^SCAN users\b/.test(d)), plan.join('\n'));
        for (const index of [
          /INDEX users_email_lower \(email_lower>\? AND email_lower<\?\)/,
          /INDEX users_family_key \(family_key>\? AND family_key<\?\)/,
          /INDEX users_given_key \(given_key>\? AND given_key<\?\)/,
          /INDEX users_circulation_number \(circulation_number=\?/,
        ]) {
          assert.ok(
            plan.some((d) => index.test(d)),
            `${index}\n${plan.join('\n')}`,
          );
        }
      }
    }
  });

  it("reads the words of a search by the longest, from each name's indexes, scanning no table", async () => {
    const { text, values } = userPageIds(
      { search: searchRange('given12 reader1234'), offset: 0, limit: 21 },
      'sqlite',
      [],
      {
        limit: PAGE_READ_LIMIT,
      },
    ).render('sqlite');
    const plan = planOf(path, text, values);
    assert.ok(!plan.some((d) => /^SCAN users\b/.test(d)), plan.join('\n'));
    for (const index of [
      /INDEX users_family_key \(family_key>\? AND family_key<\?\)/,
      /INDEX users_given_key \(given_key>\? AND given_key<\?\)/,
      /INDEX users_family_compact \(family_compact>\? AND family_compact<\?\)/,
      /INDEX users_given_compact \(given_compact>\? AND given_compact<\?\)/,
    ]) {
      assert.ok(
        plan.some((d) => index.test(d)),
        `${index}\n${plan.join('\n')}`,
      );
    }
  });

  it('reads the names one typo from a text from the trigram index, a bounded read, scanning no table', async () => {
    const plan = planOf(path, SIMILAR_NAMES_SQL, [similarMatch('readr1234'), SIMILAR_CANDIDATES]);
    assert.ok(!plan.some((d) => /^SCAN users\b/.test(d)), plan.join('\n'));
    assert.ok(
      plan.some((d) => /SCAN users_names VIRTUAL TABLE INDEX \d+:M/.test(d)),
      plan.join('\n'),
    );
    assert.ok(
      plan.some((d) => /SEARCH users USING INTEGER PRIMARY KEY/.test(d)),
      plan.join('\n'),
    );
  });

  it('seeks a text of one or two characters in id order in each index, gathering no range', async () => {
    for (const more of [{}, { afterId: '9000' }, { afterId: '9000', descending: true }]) {
      const { text, values } = userPageIds({ search: searchRange('re'), offset: 0, limit: 21, ...more }, 'sqlite', [], {
        limit: PAGE_READ_LIMIT,
      }).render('sqlite');
      const plan = planOf(path, text, values);
      assert.ok(
        !plan.some((d) => /^SCAN users\b/.test(d) || /_key[<>]\?|email_lower[<>]\?\)/.test(d)),
        plan.join('\n'),
      );
      for (const index of [
        /INDEX users_email_lower \(email_lower=\?/,
        /INDEX users_family_key \(family_key=\?/,
        /INDEX users_given_key \(given_key=\?/,
      ]) {
        assert.ok(
          plan.some((d) => index.test(d)),
          `${index}\n${plan.join('\n')}`,
        );
      }
    }
  });
});
