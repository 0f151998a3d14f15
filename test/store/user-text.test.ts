/**
 * The users' JSON text kept on their rows (store/sql/user-json.ts): the triggers that write it
 * are made when a database is opened, and when a database's are not this release's (an older
 * release's, or none), every row is written again, so no page reads text its row no longer says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { keepUsersJsonText as keepOnPostgres } from '../../src/store/postgres/user-text.js';
import { keepUsersJsonText as keepOnSqlite } from '../../src/store/sqlite/user-text.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';
import { uniqueEmail } from '../support/fixtures.js';

const AUDIT = { actor: 'test', attributes: [] };

/** Runs `act` on a writable connection of the store's database, outside the store. */
async function onDatabase<T>(
  store: TestStore,
  act: { sqlite(db: Database.Database): T; postgres(client: pg.Client): Promise<T> },
): Promise<T> {
  if (store.kind === 'SQLite') {
    const db = new Database(store.databaseUrl.replace(/^sqlite:/, ''));
    try {
      return act.sqlite(db);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: store.databaseUrl });
  await client.connect();
  try {
    return await act.postgres(client);
  } finally {
    await client.end();
  }
}

/** The user's JSON text as a page of users reads it. */
async function pageText(store: TestStore, email: string): Promise<string | undefined> {
  const page = await store.store.users.listRendered({ email: { address: email }, offset: 0, limit: 1 });
  return page.users[0]?.json;
}

forEachStore((kind) => {
  describe("users' JSON text kept on their rows", () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(() => store.close());

    it('leaves a database whose triggers are this release’s as it is', async () => {
      const made = await onDatabase(store, { sqlite: keepOnSqlite, postgres: keepOnPostgres });
      assert.equal(made, false);
    });

    it('writes every row again when the database’s triggers are an older release’s', async () => {
      const email = uniqueEmail();
      await store.store.users.create(
        { email, passwordHash: null, fields: { familyName: 'Kept' }, newsletters: [] },
        AUDIT,
      );
      const written = await pageText(store, email);
      assert.match(written ?? '', /"familyName":"Kept"/);
      // An older release: triggers that wrote other text, which its rows still hold.
      await onDatabase(store, {
        sqlite(db) {
          db.exec("DROP TRIGGER users_json_text_updated; UPDATE users SET json_text_0 = 'older'");
        },
        async postgres(client) {
          await client.query(`CREATE OR REPLACE FUNCTION users_json_text() RETURNS trigger LANGUAGE plpgsql
            AS $$ BEGIN NEW.json_text_0 := 'older'; RETURN NEW; END $$`);
          await client.query('UPDATE users SET json_text_0 = NULL');
        },
      });
      assert.match((await pageText(store, email)) ?? '', /^older/);

      const made = await onDatabase(store, { sqlite: keepOnSqlite, postgres: keepOnPostgres });
      assert.equal(made, true);
      assert.equal(await pageText(store, email), written);
    });
  });
});

describe("users' JSON text kept on their rows, on a database without the columns", () => {
  it('refuses to start, naming the column a migration must add', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, json_text_1 TEXT)');
    assert.throws(() => keepOnSqlite(db), /users has no column json_text_0 to keep its JSON text in/);
  });
});
