/**
 * The PostgreSQL adapter: the store contract in a schema of its own, and what only PostgreSQL
 * has: migrations under an advisory lock, the schema's own refusals, and query plans at size.
 */
import assert from 'node:assert/strict';
import { FIRST_SUBSCRIPTIONS_OF_USERS } from '../../src/store/postgres/subscriptions.js';
import { auditEventsQuery } from '../../src/store/sql/audit.js';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Store } from '../../src/store/port.js';
import { migratePostgres, openPostgresStore } from '../../src/store/postgres/open.js';
import { postgresMigrations } from '../../src/store/postgres/migrations.js';
import { USER_COLUMNS } from '../../src/store/sql/users.js';
import { admin, createTestSchema, postgresSkipReason, type TestSchema } from '../support/postgres.js';
import { AUDIT } from '../support/fixtures.js';
import { storeContract } from './contract.js';

const skip = postgresSkipReason;
const schemas: TestSchema[] = [];
after(async () => {
  for (const schema of schemas) await schema.drop();
});

async function freshSchema(): Promise<TestSchema> {
  const schema = await createTestSchema();
  schemas.push(schema);
  return schema;
}

if (!skip) {
  storeContract('PostgreSQL', async () => openPostgresStore({ url: (await freshSchema()).url }));
}

describe('PostgreSQL migrations', { skip }, () => {
  it('apply once when several processes start at the same moment', async () => {
    const schema = await freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore({ url: schema.url })));
    await Promise.all(stores.map((s) => s.close()));
    const applied = await admin('SELECT version FROM schema_migrations ORDER BY version', [], schema.name);
    assert.deepEqual(
      applied.map((r) => r.version),
      postgresMigrations.map((m) => m.version),
    );
  });

  it('keep the data when a newer release adds a migration', async () => {
    const schema = await freshSchema();
    const store = await openPostgresStore({ url: schema.url });
    const user = await store.createUser(
      {
        email: 'kept@example.com',
        passwordHash: null,
        fields: { familyName: 'Kept' },
        newsletters: ['n'],
      },
      AUDIT,
    );
    await store.close();
    const pool = new pg.Pool({ connectionString: schema.url });
    const next = {
      version: postgresMigrations.length + 1,
      name: 'a later column',
      sql: 'ALTER TABLE users ADD COLUMN nickname text',
    };
    await migratePostgres(pool, [...postgresMigrations, next]);
    await pool.end();
    const rows = await admin('SELECT email, family_name, nickname FROM users WHERE id = $1', [user.id], schema.name);
    assert.deepEqual(rows, [{ email: 'kept@example.com', family_name: 'Kept', nickname: null }]);
  });

  it('name the event of every audit entry written before entries carried it (migration 9)', async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    await migratePostgres(pool, postgresMigrations.slice(0, 8));
    await pool.end();
    for (const [action, resourceType, userId] of [
      ['create', 'users', '1'],
      ['expire', 'subscriptions', '1'],
      ['revoke', 'api-keys', null],
    ]) {
      await admin(
        `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes)
         VALUES ('cli', $1, $2, '1', $3, '{}')`,
        [action, resourceType, userId],
        schema.name,
      );
    }
    const store = await openPostgresStore({ url: schema.url });
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

  it('leave no trace of a migration that fails', async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    const broken = {
      version: postgresMigrations.length + 1,
      name: 'broken',
      sql: 'ALTER TABLE users ADD COLUMN x text; SELECT no_such_function()',
    };
    await migratePostgres(pool, postgresMigrations);
    await assert.rejects(migratePostgres(pool, [...postgresMigrations, broken]));
    await pool.end();
    const columns = await admin(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'users' AND column_name = 'x'",
      [schema.name],
    );
    assert.deepEqual(columns, []);
    const versions = await admin('SELECT max(version) AS v FROM schema_migrations', [], schema.name);
    assert.equal(versions[0]?.v, postgresMigrations.length);
  });

  it('refuse a database whose schema is newer than this release knows', async () => {
    const schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    await admin("INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')", [], schema.name);
    await assert.rejects(openPostgresStore({ url: schema.url }), /newer than this release knows/);
  });
});

describe('PostgreSQL schema', { skip }, () => {
  let schema: TestSchema;
  let store: Store;
  before(async () => {
    schema = await freshSchema();
    store = await openPostgresStore({ url: schema.url });
  });
  after(() => store?.close());

  it('has exactly one users column for every profile field', async () => {
    const rows = await admin<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'users'",
      [schema.name],
    );
    const columns = new Set(rows.map((r) => r.column_name));
    for (const column of USER_COLUMNS) assert.ok(columns.has(column), `no column ${column}`);
  });

  it('refuses a blank family_name, an unknown license and a subscription without a user', async () => {
    await assert.rejects(
      admin(
        "INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ('a@b.co', 'a@b.co', 'b.co', '  ')",
        [],
        schema.name,
      ),
      /check constraint/,
    );
    await assert.rejects(
      admin("INSERT INTO subscriptions (user_id, date_started, license) VALUES (1, now(), 'gold')", [], schema.name),
      /constraint/,
    );
    await assert.rejects(
      admin('INSERT INTO subscriptions (user_id, date_started) VALUES (987654321, now())', [], schema.name),
      /foreign key/,
    );
  });

  it('refuses a second email that differs only in letter case, in the schema itself', async () => {
    await admin(
      "INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ('Case@b.co', 'case@b.co', 'b.co', 'X')",
      [],
      schema.name,
    );
    await assert.rejects(
      admin(
        "INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ('CASE@b.co', 'case@b.co', 'b.co', 'Y')",
        [],
        schema.name,
      ),
      /users_email_lower/,
    );
  });

  it('lets a change go through while a webhook it would go to is being deleted, without that delivery', async () => {
    const webhook = await store.createWebhook(
      { url: 'http://127.0.0.1:9/', events: ['user.created'], secretSalt: 's' },
      AUDIT,
    );
    const deleting = new pg.Client({ connectionString: schema.url });
    await deleting.connect();
    try {
      await deleting.query('BEGIN');
      await deleting.query('DELETE FROM webhooks WHERE id = $1', [webhook.id]);
      const change = store.createUser(
        { email: 'during-delete@example.com', passwordHash: null, fields: { familyName: 'D' }, newsletters: [] },
        AUDIT,
      );
      // The change waits for the delete to end, rather than fail on the foreign key after it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await deleting.query('COMMIT');
      const user = await change;
      assert.equal((await store.getUser(user.id))?.email, 'during-delete@example.com');
      assert.deepEqual(await admin('SELECT * FROM webhook_deliveries', [], schema.name), []);
    } finally {
      await deleting.end();
    }
  });
});

describe('PostgreSQL query plans at 100,000 users', { skip }, () => {
  let schema: TestSchema;
  before(async () => {
    schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    await admin(
      `INSERT INTO users (email, email_lower, email_domain, family_name, circulation_number)
       SELECT 'u' || i || '@d' || (i % 2000) || '.example', 'u' || i || '@d' || (i % 2000) || '.example',
              'd' || (i % 2000) || '.example', 'Reader', 'C-' || i
       FROM generate_series(1, 100000) AS i`,
      [],
      schema.name,
    );
    await admin(
      `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type)
       SELECT 'test', 'update', 'subscriptions', i::text, (i % 1000)::text, '{}',
              CASE WHEN i % 20000 = 0 THEN 'subscription.expired' ELSE 'subscription.updated' END
       FROM generate_series(1, 100000) AS i`,
      [],
      schema.name,
    );
    await admin(
      `INSERT INTO subscriptions (user_id, date_started, trial) SELECT 1 + i % 50000, now(), false
       FROM generate_series(1, 100000) AS i`,
      [],
      schema.name,
    );
    await admin('ANALYZE', [], schema.name);
  });

  async function plan(sql: string, params: unknown[]): Promise<string> {
    const rows = await admin<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params, schema.name);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  for (const [name, where, value] of [
    ['the domain filter', 'email_domain = $1', 'd7.example'],
    ['the exact email filter', 'email_lower = $1', 'u7@d7.example'],
    ['the circulationNumber filter', 'circulation_number = $1', 'C-77'],
  ] as const) {
    it(`serves ${name} from an index, with no sequential scan`, async () => {
      const text = await plan(`SELECT id FROM users WHERE ${where} ORDER BY id LIMIT 101 OFFSET 0`, [value]);
      assert.doesNotMatch(text, /Seq Scan/, text);
    });
  }

  it('serves the first page and a deep page by id from the primary key, with no sequential scan', async () => {
    for (const offset of [0, 1000, 90000]) {
      const text = await plan('SELECT id FROM users ORDER BY id LIMIT 101 OFFSET $1', [offset]);
      assert.doesNotMatch(text, /Seq Scan/, text);
    }
  });

  it('serves the events of a rare type from their index, with no sequential scan', async () => {
    const { text, values } = auditEventsQuery({ limit: 101, eventTypes: ['subscription.expired'] }).render('postgres');
    const shown = await plan(text, values);
    assert.doesNotMatch(shown, /Seq Scan/, shown);
  });

  it('serves the first subscriptions of each user of a page from the primary key, with no sequential scan', async () => {
    const shown = await plan(FIRST_SUBSCRIPTIONS_OF_USERS, [Array.from({ length: 100 }, (_, i) => i + 1), 21]);
    assert.doesNotMatch(shown, /Seq Scan on subscriptions/, shown);
  });
});
