/**
 * Newsletter consents in each store's schema: the migration that makes every membership there
 * was a subscribed consent (source import, changed when the data last shows the reader's
 * newsletters sent), and the reads that the hot paths and the consent routes make, each an index
 * seek: a reader's consents and a consent's history by the reader's key, a newsletter's members
 * still from user_newsletters alone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Store } from '../../src/store/port.js';
import { postgresMigrations } from '../../src/store/postgres/migrations.js';
import { migratePostgres, openPostgresStore } from '../../src/store/postgres/open.js';
import type { Sql } from '../../src/store/sql/builder.js';
import { consentChangesQuery, consentsQuery } from '../../src/store/sql/consents.js';
import { newsletterWithCountQuery } from '../../src/store/sql/newsletters.js';
import { userPageIds } from '../../src/store/sql/users.js';
import { sqliteMigrations } from '../../src/store/sqlite/migrations.js';
import { migrate, openSqliteStore } from '../../src/store/sqlite/open.js';
import { admin, createTestSchema, postgresSkipReason, type TestSchema } from '../support/postgres.js';

const CONSENTS = (migrations: readonly { version: number; name: string }[]) =>
  migrations.find((m) => m.name.startsWith('newsletter consents'))!.version;

/** Made before the ledger: two readers, their memberships, and an audit trail that names one's newsletters. */
interface Before {
  /** Reader A: created at 1000, newsletters sent at 1500 (created) and 1700 (updated), telephone at 1900. */
  a: string;
  /** Reader B: created at 2000, nothing in the trail. */
  b: string;
}

/** What the migrated store says of the readers made before. */
async function assertMigrated(store: Store, { a, b }: Before): Promise<void> {
  const consents = async (userId: string) =>
    (await store.consents.list(userId, { limit: 10 }))?.map((c) => [c.newsletterId, c.state, c.source, c.changedAt]);
  assert.deepEqual(await consents(a), [
    ['daily', 'subscribed', 'import', 1700],
    ['weekly', 'subscribed', 'import', 1700],
  ]);
  assert.deepEqual(await consents(b), [['daily', 'subscribed', 'import', 2000]]);
  const history = await store.consents.listChanges(a, 'daily', { limit: 10 });
  assert.deepEqual(
    history?.map((h) => [h.state, h.source, h.actor, h.changedAt]),
    [['subscribed', 'import', 'migration', 1700]],
  );
  assert.deepEqual((await store.users.get(a))?.newsletters, ['daily', 'weekly']);
  assert.equal((await store.newsletters.get('daily'))?.newsletter.doubleOptIn, false);
  assert.equal((await store.newsletters.get('daily'))?.members, 2);
  // The ledger goes on from there: leaving is a second change.
  await store.users.update(
    a,
    { fields: {}, addNewsletters: [], removeNewsletters: ['daily'] },
    { actor: 'test', attributes: [] },
  );
  assert.deepEqual(
    (await store.consents.listChanges(a, 'daily', { limit: 10 }))?.map((h) => h.state),
    ['subscribed', 'unsubscribed'],
  );
  assert.equal((await store.newsletters.get('daily'))?.members, 1);
}

describe('SQLite', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const freshPath = () => {
    const dir = mkdtempSync(join(tmpdir(), 'circulation-consents-'));
    dirs.push(dir);
    return join(dir, 'circulation.db');
  };

  it('makes every membership a subscribed consent of source import, with its history (migration 30)', async () => {
    const path = freshPath();
    const db = new Database(path);
    let made: Before;
    try {
      migrate(
        db,
        sqliteMigrations.filter((m) => m.version < CONSENTS(sqliteMigrations)),
      );
      const user = db.prepare(
        `INSERT INTO users (email, email_lower, email_domain, family_name, created_at) VALUES (?, ?, 'x.co', 'R', ?)`,
      );
      const a = String(user.run('a@x.co', 'a@x.co', 1000).lastInsertRowid);
      const b = String(user.run('b@x.co', 'b@x.co', 2000).lastInsertRowid);
      db.exec(`INSERT INTO newsletters (id, name) VALUES ('daily', 'Daily'), ('weekly', 'Weekly')`);
      const join = db.prepare('INSERT INTO user_newsletters (user_id, newsletter_id) VALUES (?, ?)');
      join.run(a, 'daily');
      join.run(a, 'weekly');
      join.run(b, 'daily');
      const audit = db.prepare(
        `INSERT INTO audit_log (occurred_at, actor, action, resource_type, resource_id, user_id, attributes)
         VALUES (?, 'test', ?, 'users', ?, ?, ?)`,
      );
      audit.run(1500, 'create', a, a, '["email","newsletters"]');
      audit.run(1700, 'update', a, a, '["newsletters"]');
      audit.run(1900, 'update', a, a, '["telephone"]');
      made = { a, b };
    } finally {
      db.close();
    }
    const store = openSqliteStore({ path });
    try {
      await assertMigrated(store, made);
    } finally {
      await store.close();
    }
  });

  it('reads consents, their history and a newsletter’s members by index seeks alone', async () => {
    const path = freshPath();
    await openSqliteStore({ path }).close();
    const db = new Database(path);
    try {
      const plan = (query: Sql) => {
        const { text, values } = query.render('sqlite');
        return (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...values) as { detail: string }[]).map((r) => r.detail);
      };
      const consents = plan(consentsQuery('1', { afterId: 'daily', limit: 101 }));
      assert.ok(
        consents.every((d) => !/^SCAN/.test(d)),
        consents.join('\n'),
      );
      assert.ok(
        consents.some((d) =>
          /SEARCH newsletter_consents USING PRIMARY KEY \(user_id=\? AND newsletter_id>\?\)/.test(d),
        ),
        consents.join('\n'),
      );
      const history = plan(consentChangesQuery('1', 'daily', { afterId: '5', limit: 101 }));
      assert.ok(
        history.some((d) =>
          /SEARCH newsletter_consent_changes USING INDEX newsletter_consent_changes_consent \(user_id=\? AND newsletter_id=\? AND id>\?\)/.test(
            d,
          ),
        ),
        history.join('\n'),
      );
      const members = plan(
        userPageIds({ newsletter: 'daily', afterId: '5', offset: 0, limit: 101 }, 'sqlite', [], { limit: 10_000 }),
      );
      assert.ok(
        members.every((d) => !/newsletter_consent/.test(d)),
        members.join('\n'),
      );
      assert.ok(
        members.some((d) => /SEARCH m USING COVERING INDEX user_newsletters_newsletter/.test(d)),
        members.join('\n'),
      );
      const count = plan(newsletterWithCountQuery('daily'));
      assert.ok(
        count.every((d) => !/newsletter_consent/.test(d)),
        count.join('\n'),
      );
    } finally {
      db.close();
    }
  });
});

describe('PostgreSQL', { skip: postgresSkipReason }, () => {
  const schemas: TestSchema[] = [];
  after(async () => {
    for (const schema of schemas) await schema.drop();
  });
  const freshSchema = async () => {
    const schema = await createTestSchema();
    schemas.push(schema);
    return schema;
  };

  it('makes every membership a subscribed consent of source import, with its history (migration 30)', async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    await migratePostgres(
      pool,
      postgresMigrations.filter((m) => m.version < CONSENTS(postgresMigrations)),
    );
    await pool.end();
    const user = async (email: string, createdAt: number) => {
      const [row] = await admin<{ id: string }>(
        `INSERT INTO users (email, email_lower, email_domain, family_name, created_at)
         VALUES ($1, $1, 'x.co', 'R', to_timestamp($2)) RETURNING id`,
        [email, createdAt],
        schema.name,
      );
      return String(row!.id);
    };
    const a = await user('a@x.co', 1000);
    const b = await user('b@x.co', 2000);
    await admin(`INSERT INTO newsletters (id, name) VALUES ('daily', 'Daily'), ('weekly', 'Weekly')`, [], schema.name);
    await admin(
      `INSERT INTO user_newsletters (user_id, newsletter_id) VALUES ($1, 'daily'), ($1, 'weekly'), ($2, 'daily')`,
      [a, b],
      schema.name,
    );
    await admin(
      `INSERT INTO audit_log (occurred_at, actor, action, resource_type, resource_id, user_id, attributes) VALUES
         (to_timestamp(1500), 'test', 'create', 'users', $1, $1, '{email,newsletters}'),
         (to_timestamp(1700), 'test', 'update', 'users', $1, $1, '{newsletters}'),
         (to_timestamp(1900), 'test', 'update', 'users', $1, $1, '{telephone}')`,
      [a],
      schema.name,
    );
    const store = await openPostgresStore({ url: schema.url });
    try {
      await assertMigrated(store, { a, b });
    } finally {
      await store.close();
    }
  });

  it('reads consents and their history by the reader’s key, whatever the planner would rather', async () => {
    const schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    const plan = async (query: Sql) => {
      const { text, values } = query.render('postgres');
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        // An empty table is read whole anyway: the question is whether an index serves the query.
        await client.query('SET enable_seqscan = off');
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await client.end();
      }
    };
    const consents = await plan(consentsQuery('1', { afterId: 'daily', limit: 101 }));
    assert.match(consents, /Index Scan using newsletter_consents_pkey on newsletter_consents/, consents);
    assert.match(consents, /Index Cond: \(\(user_id = '1'::bigint\) AND \(newsletter_id > 'daily'::text\)\)/, consents);
    const history = await plan(consentChangesQuery('1', 'daily', { afterId: '5', limit: 101 }));
    assert.match(history, /Index Scan using newsletter_consent_changes_consent on newsletter_consent_changes/, history);
    assert.match(
      history,
      /Index Cond: \(\(user_id = '1'::bigint\) AND \(newsletter_id = 'daily'::text\) AND \(id > '5'::bigint\)\)/,
      history,
    );
    const members = await plan(newsletterWithCountQuery('daily'));
    assert.doesNotMatch(members, /newsletter_consent/, members);
  });
});
