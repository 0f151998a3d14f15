/**
 * The PostgreSQL adapter: the store contract in a schema of its own, and what only PostgreSQL
 * has: migrations under an advisory lock, the schema's own refusals, and query plans at size.
 */
import assert from 'node:assert/strict';
import { EVENT_TYPES } from '../../src/domain/events.js';
import { reportWeeks } from '../../src/domain/report.js';
import { SIMILAR_CANDIDATES, searchRange } from '../../src/domain/search.js';
import { activeGroupsQuery, weekCountsQuery } from '../../src/store/sql/reports.js';
import { FIRST_SUBSCRIPTIONS_OF_USERS, postgresSubscriptions } from '../../src/store/postgres/subscriptions.js';
import { auditEventsQuery } from '../../src/store/sql/audit.js';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { CredentialStore, Store, UserListQuery } from '../../src/store/port.js';
import { migratePostgres, openPostgresStore } from '../../src/store/postgres/open.js';
import { postgresMigrations } from '../../src/store/postgres/migrations.js';
import { raw, type Sql } from '../../src/store/sql/builder.js';
import { newsletterWithCountQuery } from '../../src/store/sql/newsletters.js';
import { renderedRunPageQuery, runPageQuery } from '../../src/store/sql/deliveries.js';
import { parseAddress } from '../../src/domain/site-licence.js';
import { postgresSiteLicences } from '../../src/store/postgres/site-licences.js';
import { runOf } from '../../src/domain/delivery.js';
import { dateAt } from '../../src/domain/publication.js';
import { productWithCountQuery } from '../../src/store/sql/products.js';
import { PAGE_READ_LIMIT, USER_COLUMNS, userPageIds, usersOfPage } from '../../src/store/sql/users.js';
import {
  admin,
  analyzeSchema,
  createTestSchema,
  postgresSkipReason,
  vacuumAnalyze,
  type TestSchema,
} from '../support/postgres.js';
import { AUDIT, subscriptionValues } from '../support/fixtures.js';
import { storeContract } from './contract.js';
import { eventually } from '../support/eventually.js';
import { recordStatements, type Statement } from '../support/statements.js';
import {
  CREDENTIAL_MAX_AGE_MS,
  CREDENTIALS_CHANNEL,
  postgresCredentials,
} from '../../src/store/postgres/credentials.js';
import type { ChangeListener } from '../../src/store/postgres/change-listener.js';
import { PostgresDatabase } from '../../src/store/postgres/database.js';
import { listenForChanges } from '../../src/store/postgres/change-listener.js';
import { knownUsers, USERS_CHANNEL } from '../../src/store/postgres/known-users.js';
import {
  LICENSED_DOMAINS_MAX_AGE_MS,
  keptSiteKeys,
  licensedDomains,
  seatHolders,
  SITE_KEYS_CHANNEL,
} from '../../src/store/postgres/licensed-domains.js';
import { PRODUCTS_CHANNEL, productResources } from '../../src/store/postgres/product-resources.js';
import { postgresReaderSources, READER_WITH_ACTIVE } from '../../src/store/postgres/reader-sources.js';
import { postgresProducts } from '../../src/store/postgres/products.js';
import { postgresReferences } from '../../src/store/postgres/references.js';
import {
  closeTo,
  postgresUsers,
  readFrequentNames,
  SIMILAR_NAMES_PLAN,
  similarNamesQuery,
  trigramSchema,
} from '../../src/store/postgres/users.js';

const NEW_KEY = { name: 'kept', scopes: ['read'] as const, rateLimit: null, secretHash: Buffer.alloc(32) };

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
  storeContract('PostgreSQL', async (options) => openPostgresStore({ url: (await freshSchema()).url, ...options }));
}

/**
 * A store on a fresh schema for the describe that calls this, and beside it a database of its own
 * for stores a test composes by hand, both closed after it.
 */
function storeOnFreshSchema(): { schema: TestSchema; store: Store; database: PostgresDatabase } {
  const fresh = {} as { schema: TestSchema; store: Store; database: PostgresDatabase };
  before(async () => {
    fresh.schema = await freshSchema();
    fresh.store = await openPostgresStore({ url: fresh.schema.url });
    fresh.database = new PostgresDatabase(new pg.Pool({ connectionString: fresh.schema.url }));
  });
  after(async () => {
    await fresh.store?.close();
    await fresh.database?.pool.end();
  });
  return fresh;
}

/** A reader made in `schema` behind the store's back; answers the id. */
async function insertReader(schema: TestSchema): Promise<string> {
  const [user] = await admin(
    `INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ($1, $1, 'd.example', 'Reader')
     RETURNING id`,
    [`r${Math.random().toString(36).slice(2)}@d.example`],
    schema.name,
  );
  return String(user?.id);
}

/** A change listener that never hears a notification, though it says it listens. */
const deaf: ChangeListener = { listening: true, on() {}, start() {}, close: async () => {} };

/**
 * The statement of a user's access check as the store sends it, which reads the user's
 * subscriptions (the products' default resources may follow, and the store's listener may start).
 */
async function accessStatement(store: Store, userId: string, now: number): Promise<Statement> {
  const { statements } = await recordStatements(() => store.subscriptions.activeOf(userId, now));
  const [statement, ...others] = statements.filter(({ text }) => /FROM subscriptions/.test(text));
  assert.ok(statement && others.length === 0, 'the access check reads the subscriptions in one statement');
  return statement;
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

  it('run longer than a request’s statement timeout: theirs is MIGRATION_TIMEOUT', async () => {
    const schema = await freshSchema();
    // A millisecond: each CREATE of the migrations takes longer, as an index over a large table would.
    const store = await openPostgresStore({ url: schema.url, statementTimeoutMs: 1 });
    await store.close();
    const applied = await admin('SELECT count(*)::int AS n FROM schema_migrations', [], schema.name);
    assert.equal(applied[0]?.n, postgresMigrations.length);
  });

  it('keep the data when a newer release adds a migration', async () => {
    const schema = await freshSchema();
    const store = await openPostgresStore({ url: schema.url });
    const user = await store.users.create(
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
      version: postgresMigrations.at(-1)!.version + 1,
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

  it("compute the names' keys anew and their compact keys for the users there were (migration 24)", async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    await migratePostgres(pool, postgresMigrations.slice(0, 23));
    await pool.end();
    await admin(
      `INSERT INTO users (email, email_lower, email_domain, family_name, family_key, given_name, given_key)
       VALUES ('a@old.example', 'a@old.example', 'old.example', 'Ødegaard', 'ødegaard', 'Martin', 'martin'),
              ('b@old.example', 'b@old.example', 'old.example', 'O''Brien', 'o''brien', 'Jean-Luc', 'jean-luc')`,
      [],
      schema.name,
    );
    const store = await openPostgresStore({ url: schema.url });
    try {
      const emails = async (q: string, similar = false) => {
        const search = searchRange(q);
        const query = { search: similar ? search : { ...search!, similar: undefined }, offset: 0, limit: 10 };
        return (await store.users.list(query)).users.map((u) => u.email);
      };
      assert.deepEqual(await emails('odegaard'), ['a@old.example']);
      assert.deepEqual(await emails('obrien'), ['b@old.example']);
      assert.deepEqual(await emails('jeanluc'), ['b@old.example']);
      assert.deepEqual(await emails('odegard', true), ['a@old.example']);
    } finally {
      await store.close();
    }
  });

  it('take a blank family name once the check of migration 1 is dropped, keeping the users there were (migration 32)', async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    try {
      await migratePostgres(pool, postgresMigrations.slice(0, 31));
      const insert = (email: string, familyName: string) =>
        admin(
          `INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ($1, $1, 'x.co', $2) RETURNING id`,
          [email, familyName],
          schema.name,
        );
      await assert.rejects(insert('blank@x.co', ''), /check constraint/);
      const [kept] = await insert('kept@x.co', 'Kept');
      await migratePostgres(pool, postgresMigrations);
      const [blank] = await insert('blank@x.co', '');
      const rows = await admin('SELECT id, family_name FROM users ORDER BY id', [], schema.name);
      assert.deepEqual(rows, [
        { id: kept!.id, family_name: 'Kept' },
        { id: blank!.id, family_name: '' },
      ]);
      const checks = await admin(
        `SELECT conname FROM pg_constraint WHERE conrelid = 'users'::regclass AND contype = 'c'`,
        [],
        schema.name,
      );
      assert.deepEqual(checks, []);
    } finally {
      await pool.end();
    }
  });

  it('register every product and newsletter id in use as a record named after it (migration 11)', async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    await migratePostgres(pool, postgresMigrations.slice(0, 10));
    await pool.end();
    const [user] = await admin<{ id: string }>(
      "INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ('b@x.co', 'b@x.co', 'x.co', 'B') RETURNING id",
      [],
      schema.name,
    );
    for (const product of ['legacy product', 'legacy product', null]) {
      await admin(
        'INSERT INTO subscriptions (user_id, date_started, product_id) VALUES ($1, now(), $2)',
        [user!.id, product],
        schema.name,
      );
    }
    await admin(
      "INSERT INTO user_newsletters (user_id, newsletter_id) VALUES ($1, 'legacy/news')",
      [user!.id],
      schema.name,
    );
    const store = await openPostgresStore({ url: schema.url });
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
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    await migratePostgres(pool, postgresMigrations.slice(0, 11));
    await pool.end();
    await admin(
      "INSERT INTO webhooks (url, events, secret_salt) VALUES ('http://127.0.0.1:9/', '{user.created,user.updated}', 's')",
      [],
      schema.name,
    );
    for (const [action, type] of [
      ['create', 'user.created'],
      ['update', 'user.updated'],
    ]) {
      await admin(
        `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type)
         VALUES ('cli', $1, 'users', '1', '1', '{}', $2)`,
        [action, type],
        schema.name,
      );
    }
    const store = await openPostgresStore({ url: schema.url });
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

  it("floor the outbox's instants to the millisecond, as Date.now() does (migration 17)", async () => {
    const schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    // The trigger's clock, stopped 0.7 ms past a millisecond: a schema-local clock_timestamp()
    // comes first once pg_catalog is named after the schema in the search path.
    const instant = Date.UTC(2026, 0, 1, 0, 0, 0, 1);
    await admin(
      `CREATE FUNCTION clock_timestamp() RETURNS timestamptz LANGUAGE sql AS
         $$ SELECT '2026-01-01 00:00:00.0017+00'::timestamptz $$;
       INSERT INTO webhooks (url, events, secret_salt) VALUES ('http://127.0.0.1:9/', '{user.created}', 's');
       INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type)
         VALUES ('cli', 'create', 'users', '1', '1', '{}', 'user.created');`,
      [],
      `${schema.name}, pg_catalog`,
    );
    const deliveries = await admin('SELECT created_at, next_attempt_at FROM webhook_deliveries', [], schema.name);
    assert.deepEqual(deliveries, [{ created_at: String(instant), next_attempt_at: String(instant) }]);
  });

  it('leave no trace of a migration that fails', async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    const broken = {
      version: postgresMigrations.at(-1)!.version + 1,
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
    assert.equal(versions[0]?.v, postgresMigrations.at(-1)!.version);
  });

  it('refuse a database whose schema is newer than this release knows', async () => {
    const schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    await admin("INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')", [], schema.name);
    await assert.rejects(openPostgresStore({ url: schema.url }), /newer than this release knows/);
  });
});

describe('PostgreSQL credentials kept for authentication', { skip }, () => {
  let schema: TestSchema;
  let store: Store;
  before(async () => {
    schema = await freshSchema();
    store = await openPostgresStore({ url: schema.url });
  });
  after(() => store?.close());

  /** Behind the store's back: a change no notification tells of, as if it were lost. */
  const unnotified = (sql: string, params: unknown[]) => admin(sql, params, schema.name);

  /** Reads the key for authentication until it comes from memory (once `from` listens), without a statement. */
  async function keptKey(id: string, from: CredentialStore = store.credentials) {
    return eventually(async () => {
      const { result, statements } = await recordStatements(() => from.getForAuthentication(id));
      return statements.length === 0 && result;
    }, 'the key to be read from memory');
  }

  it(`keeps a credential at most ${CREDENTIAL_MAX_AGE_MS} ms when no notification tells of its revocation`, async () => {
    const { id } = await store.credentials.create(NEW_KEY, AUDIT);
    await keptKey(id);
    await unnotified('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    const revokedAt = performance.now();
    assert.equal((await store.credentials.getForAuthentication(id))?.revokedAt, null, 'not kept');
    await eventually(
      async () => (await store.credentials.getForAuthentication(id))?.revokedAt !== null,
      'the revocation to be seen',
      CREDENTIAL_MAX_AGE_MS + 2000,
    );
    assert.ok(performance.now() - revokedAt <= CREDENTIAL_MAX_AGE_MS + 250, 'kept past its age');
  });

  it('forgets every credential kept on a notification from any connection', async () => {
    const { id } = await store.credentials.create(NEW_KEY, AUDIT);
    await keptKey(id);
    await unnotified('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    await admin(`NOTIFY ${CREDENTIALS_CHANNEL}`);
    await eventually(
      async () => (await store.credentials.getForAuthentication(id))?.revokedAt !== null,
      'the revocation to be seen',
      1000,
    );
  });

  it('reads a credential from the store, not memory, right after a change through this store', async () => {
    // Credentials whose listener never hears a notification: with the real one, the revocation's
    // own notification could empty what is kept first, and this would pass without the store's
    // forgetting what it changed.
    const pool = new pg.Pool({ connectionString: schema.url });
    try {
      const credentials = postgresCredentials(new PostgresDatabase(pool), deaf);
      const { id } = await credentials.create(NEW_KEY, AUDIT);
      await keptKey(id, credentials);
      await credentials.revoke(id, Math.floor(Date.now() / 1000), AUDIT);
      assert.notEqual((await credentials.getForAuthentication(id))?.revokedAt, null);
    } finally {
      await pool.end();
    }
  });
});

describe("PostgreSQL products' default resources kept for the access check", { skip }, () => {
  const fresh = storeOnFreshSchema();
  const now = Math.floor(Date.now() / 1000);

  /** Behind the store's back: a change no notification tells of, as if it were lost. */
  const unnotified = (sql: string, params: unknown[]) => admin(sql, params, fresh.schema.name);

  /** A new product giving `resource`, and a reader whose one active subscription names only it. */
  async function subscriberOf(resource: string): Promise<{ product: string; user: string }> {
    const product = `p${Math.random().toString(36).slice(2)}`;
    await unnotified('INSERT INTO products (id, name, resource) VALUES ($1, $1, $2)', [product, resource]);
    const user = await insertReader(fresh.schema);
    await unnotified(
      "INSERT INTO subscriptions (user_id, date_started, product_id) VALUES ($1, now() - interval '1 day', $2)",
      [user, product],
    );
    return { product, user };
  }

  /** The resource `user`'s check finds given, once it comes without reading the products. */
  async function keptCheck(
    user: string,
    from: Pick<Store['subscriptions'], 'activeOf'> = fresh.store.subscriptions,
  ) {
    return eventually(async () => {
      const { result, statements } = await recordStatements(() => from.activeOf(user, now));
      const reads = statements.filter(({ text }) => /\bFROM (subscriptions|products)\b/.test(text));
      return reads.length === 1 && !/\bFROM products\b/.test(reads[0]!.text) && result?.[0]?.resource;
    }, "the product's resource to be applied from memory");
  }

  /**
   * Changes `product`'s resource behind the store's back once `keep` has it kept, and asserts that
   * `read` still gives what was kept; answers the resource the product now has. Every test schema
   * shares the database's channel, so another file's change to a product can empty the memory
   * meanwhile: the attempt is then made again, and only a store that keeps nothing fails all three.
   */
  async function assertKeptThroughAnUnnotifiedChange(
    product: string,
    keep: () => Promise<unknown>,
    read: () => Promise<unknown>,
  ): Promise<string> {
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const kept = await keep();
      const other = kept === 'print' ? 'online' : 'print';
      await unnotified('UPDATE products SET resource = $2 WHERE id = $1', [product, other]);
      if ((await read()) === kept) return other;
    }
    assert.fail('a change no notification told of was seen at once, three times over: nothing was kept');
  }

  it("applies a product's default resource from memory once read: the check is then one statement", async () => {
    const { user } = await subscriberOf('print');
    const { result, statements } = await recordStatements(() => fresh.store.subscriptions.activeOf(user, now));
    assert.equal(result?.[0]?.resource, 'print');
    assert.ok(
      statements.some(({ text }) => /\bFROM products\b/.test(text) && !/\bFROM subscriptions\b/.test(text)),
      'the first check reads the product apart',
    );
    assert.equal(await keptCheck(user), 'print');
  });

  it("forgets the products' default resources on a notification from any connection", async () => {
    const { product, user } = await subscriberOf('print');
    const changed = await assertKeptThroughAnUnnotifiedChange(
      product,
      () => keptCheck(user),
      async () => (await fresh.store.subscriptions.activeOf(user, now))?.[0]?.resource,
    );
    await admin(`NOTIFY ${PRODUCTS_CHANNEL}`);
    await eventually(
      async () => (await fresh.store.subscriptions.activeOf(user, now))?.[0]?.resource === changed,
      'the change to be seen',
      1000,
    );
  });

  it("keeps a product's default resource at most its age when no notification tells of a change", async () => {
    const maxAgeMs = 1000;
    const { product } = await subscriberOf('print');
    const changes = listenForChanges(fresh.schema.url, 5000);
    try {
      const resources = productResources(fresh.database, changes, maxAgeMs);
      const read = async () => (await resources.of([product])).get(product);
      const keep = () =>
        eventually(async () => {
          const { result, statements } = await recordStatements(() => resources.of([product]));
          return statements.length === 0 && result.get(product);
        }, 'the resource to be kept');
      const changed = await assertKeptThroughAnUnnotifiedChange(product, keep, read);
      const changedAt = performance.now();
      await eventually(async () => (await read()) === changed, 'the change', maxAgeMs + 2000);
      assert.ok(performance.now() - changedAt <= maxAgeMs + 250, 'kept past its age');
    } finally {
      await changes.close();
    }
  });

  it("applies a product's default resource changed through this store from the very next check", async () => {
    // Nothing but the store's own forgetting can tell this process: its listener hears nothing.
    const { product, user } = await subscriberOf('print');
    const { database } = fresh;
    const resources = productResources(database, deaf);
    const subscriptions = postgresSubscriptions(
      database,
      postgresReferences(false, false),
      resources,
      knownUsers(fresh.database, deaf),
    );
    const products = postgresProducts(database, resources);
    assert.equal(await keptCheck(user, subscriptions), 'print');
    await products.update(product, { resource: 'online' }, AUDIT);
    assert.equal((await subscriptions.activeOf(user, now))?.[0]?.resource, 'online');
  });
});

describe('PostgreSQL users known to exist, for the access check', { skip }, () => {
  const fresh = storeOnFreshSchema();
  const now = Math.floor(Date.now() / 1000);

  /** A reader whose one subscription ended yesterday, made behind the store's back; or, `active`, one running. */
  async function reader({ active = false } = {}): Promise<string> {
    const user = await insertReader(fresh.schema);
    await admin(
      `INSERT INTO subscriptions (user_id, date_started, date_ended, resource)
       VALUES ($1, now() - interval '30 days', now() + ($2 || ' days')::interval, 'online')`,
      [user, active ? 30 : -1],
      fresh.schema.name,
    );
    return user;
  }

  /** The statements of `user`'s access check that read the users' table. */
  async function userReads(
    user: string,
    from: Pick<Store['subscriptions'], 'activeOf'> = fresh.store.subscriptions,
  ) {
    const { result, statements } = await recordStatements(() => from.activeOf(user, now));
    assert.deepEqual(result, []);
    return statements.filter(({ text }) => /\bFROM users\b/.test(text)).length;
  }

  /** Waits until `user` is known: the check then reads the subscriptions alone. */
  const known = (user: string, from?: Pick<Store['subscriptions'], 'activeOf'>) =>
    eventually(async () => (await userReads(user, from)) === 0, 'the user to be known');

  it("never asks whether a subscriber exists: an active subscription's user does", async () => {
    const user = await reader({ active: true });
    const { result, statements } = await recordStatements(() => fresh.store.subscriptions.activeOf(user, now));
    assert.equal(result?.length, 1);
    assert.deepEqual(
      statements.map(({ text }) => /\bFROM (\w+)/.exec(text)?.[1]),
      ['subscriptions'],
    );
  });

  it('asks whether a reader with no active subscription exists once, then knows it', async () => {
    const user = await reader();
    assert.equal(await userReads(user), 1);
    await known(user);
  });

  it('asks again after a user it did not find, every time', async () => {
    for (let check = 0; check < 2; check += 1) {
      const { result, statements } = await recordStatements(() => fresh.store.subscriptions.activeOf('987654321', now));
      assert.equal(result, undefined);
      assert.ok(
        statements.some(({ text }) => /\bFROM users\b/.test(text)),
        'the user asked after',
      );
    }
  });

  it('forgets the users it knows on a notification from any connection', async () => {
    // Every test schema shares the database's channel, so another file's erasure can empty the
    // memory meanwhile: the attempt is then made again, and only a store that keeps nothing fails all three.
    let erased: string | undefined;
    for (let attempt = 1; attempt <= 3 && erased === undefined; attempt += 1) {
      const user = await reader();
      await known(user);
      await admin('DELETE FROM users WHERE id = $1', [user], fresh.schema.name);
      if ((await fresh.store.subscriptions.activeOf(user, now)) !== undefined) erased = user;
    }
    assert.ok(erased, 'an erasure no notification told of was seen at once, three times over: nothing was kept');
    await admin(`NOTIFY ${USERS_CHANNEL}`);
    await eventually(
      async () => (await fresh.store.subscriptions.activeOf(erased, now)) === undefined,
      'the erasure',
      1000,
    );
  });

  it('forgets a user erased through this store from the very next check, though nothing was heard', async () => {
    // Nothing but the store's own forgetting can tell this process: its listener hears nothing.
    const user = await reader();
    const users = knownUsers(fresh.database, deaf);
    const references = postgresReferences(false, false);
    const subscriptions = postgresSubscriptions(
      fresh.database,
      references,
      productResources(fresh.database, deaf),
      users,
    );
    await known(user, subscriptions);
    assert.equal(await postgresUsers(fresh.database, references, users, PAGE_READ_LIMIT).delete(user, AUDIT), true);
    assert.equal(await subscriptions.activeOf(user, now), undefined);
  });

  it('knows a user at most its age when no notification tells of an erasure', async () => {
    const maxAgeMs = 1000;
    const user = await reader();
    const users = knownUsers(fresh.database, deaf, { maxAgeMs });
    assert.equal(await users.exists(user), true);
    await admin('DELETE FROM users WHERE id = $1', [user], fresh.schema.name);
    const erasedAt = performance.now();
    assert.equal(await users.exists(user), true, 'known until its age');
    await eventually(async () => !(await users.exists(user)), 'the erasure', maxAgeMs + 2000);
    assert.ok(performance.now() - erasedAt <= maxAgeMs + 250, 'known past its age');
  });

  it('knows at most its number of users, forgetting the one known longest', async () => {
    const [first, second, third] = [await reader(), await reader(), await reader()];
    const users = knownUsers(fresh.database, deaf, { maxEntries: 2 });
    for (const user of [first, second, third]) assert.equal(await users.exists(user), true);
    const asked = async (user: string) => (await recordStatements(() => users.exists(user))).statements.length;
    assert.equal(await asked(third), 0);
    assert.equal(await asked(second), 0);
    assert.equal(await asked(first), 1, 'the first known was forgotten');
  });
});

describe("PostgreSQL site keys kept for the access checks: licensed domains, ranges' prefix lengths", { skip }, () => {
  const fresh = storeOnFreshSchema();
  const now = Math.floor(Date.now() / 1000);
  let counter = 0;
  /** A domain no other test of this file names. */
  const newDomain = () => `kept-${++counter}.example`;

  /** A reader of `domain`, made behind the store's back; answers the id. */
  async function readerOf(domain: string): Promise<string> {
    const email = `r${Math.random().toString(36).slice(2)}@${domain}`;
    const [user] = await admin(
      `INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ($1, $1, $2, 'Reader') RETURNING id`,
      [email, domain],
      fresh.schema.name,
    );
    return String(user?.id);
  }

  /** A licence of `domain` active now, made behind the store's back: no notification tells of it. */
  async function unnotifiedLicence(domain: string): Promise<string> {
    const owner = await readerOf('owner.example');
    const [licence] = await admin(
      `INSERT INTO subscriptions (user_id, date_started, license, resource, email_domains)
       VALUES ($1, now() - interval '1 day', 'site', 'online', $2) RETURNING id`,
      [owner, domain],
      fresh.schema.name,
    );
    await admin(
      'INSERT INTO site_domains (domain, user_id, subscription_id) VALUES ($1, $2, $3)',
      [domain, owner, licence?.id],
      fresh.schema.name,
    );
    return String(licence?.id);
  }

  const licenceValues = (domain: string) =>
    subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60, emailDomains: [domain] });

  /** The licences of `user`'s domain as `from` finds them. */
  async function byDomain(
    user: string,
    from: Pick<Store['siteLicences'], 'readerSourcesOf'> = fresh.store.siteLicences,
  ) {
    return (await from.readerSourcesOf(user, now))?.byDomain.map((l) => l.id);
  }

  /**
   * Waits until `user`'s check reads the licensed domains (and the seat holders) from memory: it
   * then reads no site_domains (nor seat_holders).
   */
  const kept = (user: string, from: Pick<Store['siteLicences'], 'readerSourcesOf'> = fresh.store.siteLicences) =>
    eventually(async () => {
      const { statements } = await recordStatements(() => from.readerSourcesOf(user, now));
      return !statements.some(({ text }) => /\bFROM (site_domains|seat_holders)\b/.test(text));
    }, 'the licensed domains to be kept');

  it('checks a reader whose domain no licence names in one statement, once the domains are kept', async () => {
    await unnotifiedLicence(newDomain());
    const user = await readerOf(newDomain());
    await kept(user);
    const { result, statements } = await recordStatements(() => fresh.store.siteLicences.readerSourcesOf(user, now));
    assert.deepEqual(result, { own: [], byDomain: [], bySeat: [] });
    assert.deepEqual(
      statements.map(({ text }) => /\bFROM (\w+)/.exec(text)?.[1]),
      ['users'],
    );
  });

  it('forgets the licensed domains on a notification from any connection', async () => {
    // Every test schema shares the database's channel, so another file's licence can empty the
    // memory meanwhile: the attempt is then made again, and only a store that keeps nothing fails all three.
    let unseen: { user: string; licence: string } | undefined;
    for (let attempt = 1; attempt <= 3 && unseen === undefined; attempt += 1) {
      const domain = newDomain();
      const user = await readerOf(domain);
      await kept(user);
      const licence = await unnotifiedLicence(domain);
      if ((await byDomain(user))?.length === 0) unseen = { user, licence };
    }
    assert.ok(unseen, 'a licence no notification told of was seen at once, three times over: nothing was kept');
    await admin(`NOTIFY ${SITE_KEYS_CHANNEL}`);
    const { user, licence } = unseen;
    await eventually(async () => (await byDomain(user))?.[0] === licence, 'the licence to be seen', 1000);
  });

  it('sees a licence another store adds within the maximum age', async () => {
    const domain = newDomain();
    const user = await readerOf(domain);
    await kept(user);
    const other = await openPostgresStore({ url: fresh.schema.url });
    try {
      const owner = await readerOf('owner.example');
      const licence = await other.subscriptions.create(owner, licenceValues(domain), AUDIT);
      assert.ok(licence);
      const addedAt = performance.now();
      await eventually(
        async () => (await byDomain(user))?.[0] === licence.id,
        'the licence to be seen',
        LICENSED_DOMAINS_MAX_AGE_MS + 2000,
      );
      assert.ok(performance.now() - addedAt <= LICENSED_DOMAINS_MAX_AGE_MS + 250, 'seen past the maximum age');
    } finally {
      await other.close();
    }
  });

  it('keeps the licensed domains at most their age when no notification tells of a licence', async () => {
    const maxAgeMs = 1000;
    const domains = licensedDomains(fresh.database, deaf, maxAgeMs);
    const domain = newDomain();
    assert.equal((await domains.current()).has(domain), false);
    await unnotifiedLicence(domain);
    const addedAt = performance.now();
    assert.equal((await domains.current()).has(domain), false, 'kept until their age');
    await eventually(async () => (await domains.current()).has(domain), 'the domain', maxAgeMs + 2000);
    assert.ok(performance.now() - addedAt <= maxAgeMs + 250, 'kept past their age');
  });

  /** The subscriptions of the fresh schema with the site keys they keep, told nothing by any listener. */
  function deafSubscriptions() {
    const { database } = fresh;
    const keys = keptSiteKeys(database, deaf);
    const resources = productResources(database, deaf);
    const subscriptions = postgresSubscriptions(
      database,
      postgresReferences(false, false),
      resources,
      knownUsers(database, deaf),
      keys,
    );
    return { keys, resources, subscriptions };
  }

  it('sees a domain written through this store from the very next check, though nothing was heard', async () => {
    // Nothing but the store's own forgetting can tell this process: its listener hears nothing.
    const { database } = fresh;
    const { keys, resources, subscriptions } = deafSubscriptions();
    const sources = postgresReaderSources(
      database,
      keys.domains,
      seatHolders(database, deaf),
      resources,
      subscriptions,
    );
    const [first, second] = [newDomain(), newDomain()];
    const [firstReader, secondReader] = [await readerOf(first), await readerOf(second)];
    assert.deepEqual(await byDomain(firstReader, sources), []);
    const owner = await readerOf('owner.example');
    const licence = await subscriptions.create(owner, licenceValues(first), AUDIT);
    assert.ok(licence);
    assert.deepEqual(await byDomain(firstReader, sources), [licence.id]);
    assert.deepEqual(await byDomain(secondReader, sources), []);
    await subscriptions.update(owner, licence.id, (current) => ({ ...current, emailDomains: [first, second] }), AUDIT);
    assert.deepEqual(await byDomain(secondReader, sources), [licence.id]);
  });

  const rangeLicence = (...ipRanges: string[]) =>
    subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60, ipRanges });

  /** The licences holding `address` as `from` finds them. */
  async function byNetwork(
    address: string,
    from: Pick<Store['siteLicences'], 'ofNetwork'> = fresh.store.siteLicences,
  ) {
    const parsed = parseAddress(address);
    assert.ok(parsed.ok);
    return (await from.ofNetwork(parsed.value, now)).map((l) => l.id);
  }

  it('sees a range of a prefix length no range used, written through this store, from the very next check', async () => {
    // Nothing but the store's own forgetting can tell this process: its listener hears nothing.
    const { database } = fresh;
    const { keys, subscriptions } = deafSubscriptions();
    const licences = postgresSiteLicences(database, keys.prefixLengths);
    assert.deepEqual(await byNetwork('198.51.100.7', licences), []);
    const owner = await readerOf('owner.example');
    const licence = await subscriptions.create(owner, rangeLicence('198.48.0.0/13'), AUDIT);
    assert.ok(licence);
    assert.deepEqual(await byNetwork('198.51.100.7', licences), [licence.id]);
    assert.deepEqual(await byNetwork('203.0.113.9', licences), []);
    await subscriptions.update(
      owner,
      licence.id,
      (current) => ({ ...current, ipRanges: ['198.48.0.0/13', '203.0.113.0/27'] }),
      AUDIT,
    );
    assert.deepEqual(await byNetwork('203.0.113.9', licences), [licence.id]);
  });

  it('sees a range of a prefix length no range used that another store adds, when told of it', async () => {
    assert.deepEqual(await byNetwork('192.0.2.200'), []);
    const other = await openPostgresStore({ url: fresh.schema.url });
    try {
      const owner = await readerOf('owner.example');
      const licence = await other.subscriptions.create(owner, rangeLicence('192.0.2.192/26'), AUDIT);
      assert.ok(licence);
      // Well within the age that would show it without the notification.
      await eventually(async () => (await byNetwork('192.0.2.200'))[0] === licence.id, 'the licence to be seen', 1000);
    } finally {
      await other.close();
    }
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

  it('refuses a missing family_name, an unknown license and a subscription without a user', async () => {
    await assert.rejects(
      admin(
        "INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ('a@b.co', 'a@b.co', 'b.co', NULL)",
        [],
        schema.name,
      ),
      /not-null constraint/,
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

  it('refuses, by foreign keys, a reference to a product or newsletter that does not exist', async () => {
    const [user] = await admin<{ id: string }>(
      "INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ('fk@b.co', 'fk@b.co', 'b.co', 'F') RETURNING id",
      [],
      schema.name,
    );
    await assert.rejects(
      admin(
        "INSERT INTO subscriptions (user_id, date_started, product_id) VALUES ($1, now(), 'nowhere')",
        [user!.id],
        schema.name,
      ),
      /subscriptions_product_id_fkey/,
    );
    await assert.rejects(
      admin("INSERT INTO user_newsletters (user_id, newsletter_id) VALUES ($1, 'nowhere')", [user!.id], schema.name),
      /user_newsletters_newsletter_id_fkey/,
    );
    await admin("INSERT INTO products (id, name) VALUES ('kept', 'Kept')", [], schema.name);
    await admin(
      "INSERT INTO subscriptions (user_id, date_started, product_id) VALUES ($1, now(), 'kept')",
      [user!.id],
      schema.name,
    );
    await assert.rejects(
      admin("DELETE FROM products WHERE id = 'kept'", [], schema.name),
      /subscriptions_product_id_fkey/,
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
    const webhook = await store.webhooks.create(
      { url: 'http://127.0.0.1:9/', events: ['user.created'], secretSalt: 's' },
      AUDIT,
    );
    const deleting = new pg.Client({ connectionString: schema.url });
    await deleting.connect();
    try {
      await deleting.query('BEGIN');
      await deleting.query('DELETE FROM webhooks WHERE id = $1', [webhook.id]);
      const change = store.users.create(
        { email: 'during-delete@example.com', passwordHash: null, fields: { familyName: 'D' }, newsletters: [] },
        AUDIT,
      );
      // The change waits for the delete to end, rather than fail on the foreign key after it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await deleting.query('COMMIT');
      const user = await change;
      assert.equal((await store.users.get(user.id))?.email, 'during-delete@example.com');
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
    // As replica, the log's trigger does not look for webhooks to deliver each event to (there are
    // none here): it took four of the six seconds this insert did.
    await admin(
      `SET session_replication_role = replica;
       INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type)
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
    await analyzeSchema(schema.name);
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

  it("serves a user's events newest first from the user's index, with no sequential scan or sort", async () => {
    for (const afterId of [undefined, '50000']) {
      const query = { limit: 21, userId: '7', eventTypes: EVENT_TYPES, descending: true, afterId };
      const { text, values } = auditEventsQuery(query).render('postgres');
      const shown = await plan(text, values);
      assert.doesNotMatch(shown, /Seq Scan|Sort/, shown);
      assert.match(shown, /Index Scan Backward using audit_log_user on audit_log/, shown);
    }
  });

  it('serves the first subscriptions of each user of a page from the primary key, with no sequential scan', async () => {
    const shown = await plan(FIRST_SUBSCRIPTIONS_OF_USERS, [Array.from({ length: 100 }, (_, i) => i + 1), 21]);
    assert.doesNotMatch(shown, /Seq Scan on subscriptions/, shown);
  });
});

describe('PostgreSQL plan of the access check before any statistics', { skip }, () => {
  it("reads the user's subscriptions by the user's key in a plan kept for every user, not a bitmap of all not ended, with or without their domain", async () => {
    const schema = await freshSchema();
    const store = await openPostgresStore({ url: schema.url });
    for (const statement of [
      'ALTER TABLE users SET (autovacuum_enabled = false)',
      'ALTER TABLE subscriptions SET (autovacuum_enabled = false)',
      `INSERT INTO users (email, email_lower, email_domain, family_name)
       SELECT 'u' || i || '@d.example', 'u' || i || '@d.example', 'd.example', 'Reader' FROM generate_series(1, 10000) AS i`,
      `INSERT INTO subscriptions (user_id, date_started, date_ended, resource)
       SELECT id, now() - interval '10 days', CASE WHEN k = 0 THEN NULL ELSE now() + k * interval '30 days' END, 'online'
       FROM users, generate_series(0, 2) AS k`,
    ]) {
      await admin(statement, [], schema.name);
    }
    const { text, values } = await accessStatement(store, '77', Math.floor(Date.now() / 1000));
    await store.close();
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      // The check's statement while no licence names a domain, and once one does.
      for (const [name, statement] of [
        ['access', text],
        ['reader_access', READER_WITH_ACTIVE],
      ] as const) {
        await client.query(`PREPARE ${name} AS ${statement}`);
        const literal = (v: unknown) => (v instanceof Date ? `'${v.toISOString()}'` : `'${String(v)}'`);
        const { rows } = await client.query(`EXPLAIN EXECUTE ${name}(${values.map(literal).join(', ')})`);
        const shown = rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(shown, /Scan (using|on) subscriptions_pkey[^\n]*\n\s+Index Cond: \(user_id = \$1\)/, shown);
        assert.doesNotMatch(shown, /BitmapAnd|BitmapOr|subscriptions_lapsing|Seq Scan on (subscriptions|users)/, shown);
      }
    } finally {
      await client.end();
    }
  });
});

describe('PostgreSQL plan of a page of users at 10,000 users', { skip }, () => {
  let schema: TestSchema;
  before(async () => {
    schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    await admin(
      `INSERT INTO users (email, email_lower, email_domain, family_name)
       SELECT 'u' || i || '@d.example', 'u' || i || '@d.example', 'd.example', 'Reader' FROM generate_series(1, 10000) AS i`,
      [],
      schema.name,
    );
    await analyzeSchema(schema.name);
  });

  for (const [name, cursor] of [
    ['the first page', {}],
    ['a page past a cursor', { afterId: '4321' }],
  ] as const) {
    it(`reads ${name}'s rows by the users' key, not by scanning every user`, async () => {
      const { text, values } = usersOfPage({ limit: 101, offset: 0, ...cursor }, raw('id, email'), 'postgres', [], {
        limit: PAGE_READ_LIMIT,
      }).render('postgres');
      const rows = await admin<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values, schema.name);
      const shown = rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.doesNotMatch(shown, /Seq Scan on users/, shown);
      assert.match(shown, /Index Scan using users_pkey on users\b[^\n]*\n\s+Index Cond: \(id = ANY/, shown);
    });
  }
});

describe('PostgreSQL plan of a page of the print run at 10,000 users', { skip }, () => {
  let schema: TestSchema;
  // The moment the plans are asked at, passed to the statements: a suite running past midnight
  // would otherwise find tomorrow's run begun, and walked as a past one.
  const now = Math.floor(Date.now() / 1000);
  const run = runOf(dateAt(now, 'UTC') + 1, 'UTC');
  before(async () => {
    schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    for (const statement of [
      `INSERT INTO users (email, email_lower, email_domain, family_name)
       SELECT 'u' || i || '@d.example', 'u' || i || '@d.example', 'd.example', 'Reader' FROM generate_series(1, 10000) AS i`,
      // One subscription in three gives print, as in the benchmark's seed, and is marked so (migration 38).
      `INSERT INTO subscriptions (user_id, date_started, date_ended, resource, gives_print)
       SELECT id, now() - interval '10 days', NULL, CASE WHEN k = 0 THEN 'print' ELSE 'online' END, k = 0
       FROM users, generate_series(0, 2) AS k`,
    ]) {
      await admin(statement, [], schema.name);
    }
    await vacuumAnalyze(schema.name);
  });

  it('counts the draw of every reader though it takes longer than a request’s statement timeout', async () => {
    // A millisecond: counting 10,000 deliveries takes longer, as counting a million takes longer than 5 s.
    const store = await openPostgresStore({ url: schema.url, statementTimeoutMs: 1 });
    try {
      const counts = await store.deliveries.countDraw(run);
      assert.equal(
        counts.reduce((sum, count) => sum + count.copies, 0),
        10_000,
      );
    } finally {
      await store.close();
    }
  });

  // A run to come walks the subscriptions it may deliver (not expired, marked as giving print); a
  // run begun or past, which shows the expired it delivered, walks them all.
  const past = runOf(run.date - 2, 'UTC');
  for (const [name, query, page, walked, index] of [
    ['the first page', { limit: 101 }, runPageQuery, run, 'subscriptions_print_run'],
    ['a page past a cursor', { limit: 101, afterId: '14321' }, runPageQuery, run, 'subscriptions_print_run'],
    [
      'a page of a postal code',
      { limit: 101, afterId: '14321', postalCode: '10115' },
      runPageQuery,
      run,
      'subscriptions_print_run',
    ],
    ['the first page as JSON', { limit: 101 }, renderedRunPageQuery, run, 'subscriptions_print_run'],
    [
      'a page past a cursor as JSON',
      { limit: 101, afterId: '14321' },
      renderedRunPageQuery,
      run,
      'subscriptions_print_run',
    ],
    [
      'a page of a past run past a cursor',
      { limit: 101, afterId: '14321' },
      renderedRunPageQuery,
      past,
      'subscriptions_id',
    ],
  ] as const) {
    it(`walks ${name} by ${index} in id order, whatever the values (generic plan)`, async () => {
      const { text, values } = page(walked, query, 'postgres', now).render('postgres');
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        await client.query('SET plan_cache_mode = force_generic_plan');
        await client.query(`PREPARE page AS ${text}`);
        const literal = (v: unknown) => (v instanceof Date ? `'${v.toISOString()}'` : `'${String(v)}'`);
        const { rows } = await client.query(`EXPLAIN EXECUTE page(${values.map(literal).join(', ')})`);
        const shown = rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(shown, new RegExp(`Index Scan using ${index} on subscriptions s\\b`), shown);
        assert.doesNotMatch(shown, /Seq Scan on (subscriptions|users)|Sort Key: s\.id/, shown);
      } finally {
        await client.end();
      }
    });
  }
});

describe('PostgreSQL query plans of the catalogue filters at 100,000 users', { skip }, () => {
  let schema: TestSchema;
  let store: Store;
  const now = Math.floor(Date.now() / 1000);
  before(async () => {
    schema = await freshSchema();
    store = await openPostgresStore({ url: schema.url });
    const statements = [
      `INSERT INTO products (id, name, resource) VALUES ('digital', 'Digital', 'online'), ('paper', 'Paper', 'print'),
         ('rare', 'Rare', NULL), ('launch', 'Launch', 'print-online')`,
      `INSERT INTO newsletters (id, name) VALUES ('daily', 'Daily'), ('weekly', 'Weekly'), ('rare', 'Rare')`,
      `INSERT INTO users (email, email_lower, email_domain, family_name, circulation_number)
       SELECT 'u' || i || '@d' || (i % 2000) || '.example', 'u' || i || '@d' || (i % 2000) || '.example',
              'd' || (i % 2000) || '.example', 'Reader', 'C-' || i
       FROM generate_series(1, 100000) AS i`,
      `INSERT INTO user_newsletters (user_id, newsletter_id)
       SELECT id, CASE id % 3 WHEN 0 THEN 'daily' WHEN 1 THEN 'weekly' END FROM users WHERE id % 3 < 2`,
      `INSERT INTO user_newsletters (user_id, newsletter_id) SELECT id, 'rare' FROM users WHERE id % 100 = 0`,
      `INSERT INTO subscriptions (user_id, date_started, date_ended, resource, product_id, expired)
       SELECT id, now() - interval '200 days', now() + (id % 400 - 100) * interval '1 day',
              CASE (id + k) % 4 WHEN 0 THEN 'print' WHEN 1 THEN 'online' WHEN 2 THEN 'print-online' END,
              CASE WHEN k = 0 THEN 'digital' WHEN k = 1 AND id % 100 = 0 THEN 'rare' WHEN k = 1 THEN 'paper' END,
              (id + k) % 10 = 0
       FROM users, generate_series(0, 2) AS k`,
      `INSERT INTO subscriptions (user_id, date_started, pending_start, resource)
       SELECT id, now() + (id % 30 + 1) * interval '1 day', now() + (id % 30 + 1) * interval '1 day', 'print-online'
       FROM users`,
      `INSERT INTO subscriptions (user_id, date_started, pending_start, resource)
       SELECT id, now() - interval '1 hour', now() - interval '1 hour', 'print' FROM users WHERE id % 1000 = 0`,
      `INSERT INTO subscriptions (user_id, date_started, pending_start, product_id)
       SELECT id, now() + interval '20 days', now() + interval '20 days', 'launch' FROM users`,
    ];
    for (const statement of statements) await admin(statement, [], schema.name);
    await vacuumAnalyze(schema.name);
  });
  after(() => store?.close());

  async function plan(query: Sql | Statement, options = ''): Promise<string> {
    const { text, values } = 'render' in query ? query.render('postgres') : query;
    const rows = await admin<{ 'QUERY PLAN': string }>(`EXPLAIN ${options} ${text}`, values, schema.name);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  /**
   * No large table is read whole; past a cursor, every index read of one starts at a key (a seek),
   * where a first page may start at the first entry and stop at the page's end.
   */
  function assertSeeks(text: string, cursor = true): void {
    assert.doesNotMatch(text, /Seq Scan on (users|subscriptions|user_newsletters)\b/, text);
    const lines = text.split('\n');
    // A bitmap reads its rows out of order, which is right only for the few subscriptions whose
    // start has passed since the lapse job last ran.
    for (const line of lines.filter((l) => /Bitmap Index Scan/.test(l))) {
      assert.match(line, /on subscriptions_pending_start\b/, text);
    }
    if (!cursor) return;
    lines.forEach((line, i) => {
      if (/Index (Only )?Scan (Backward )?using \S+ on (users|subscriptions|user_newsletters)\b/.test(line)) {
        assert.match(lines[i + 1] ?? '', /Index Cond/, `an index read from its first entry:\n${text}`);
      }
    });
  }

  it('counts the dashboard report from indexes alone: the current subscriptions, and a range of starts and of ends per week', async () => {
    const groups = await plan(activeGroupsQuery(now, 'postgres'));
    assert.doesNotMatch(groups, /Seq Scan on subscriptions/, groups);
    assert.match(groups, /Index Only Scan using subscriptions_current on subscriptions/, groups);
    const weeks = await plan(weekCountsQuery(reportWeeks(now), 'postgres'));
    assert.doesNotMatch(weeks, /Seq Scan/, weeks);
    for (const index of ['subscriptions_started', 'subscriptions_ended']) {
      assert.equal(weeks.match(new RegExp(`Index Only Scan using ${index} `, 'g'))?.length, 12, weeks);
    }
  });

  /** The statement of a page as the store sends it, last of those it runs (the products it seeks first). */
  async function page(query: Partial<UserListQuery>): Promise<Statement> {
    const { statements } = await recordStatements(() => store.users.list({ offset: 0, limit: 101, ...query }));
    return statements.at(-1) as Statement;
  }

  for (const [name, query, index] of [
    ['the members of a newsletter', { newsletter: 'weekly' }, 'user_newsletters_newsletter'],
    [
      'users with an active subscription giving print',
      { activeSubscription: { at: now, resource: 'print' } },
      'subscriptions_resource',
    ],
    [
      'users with an active subscription of a product',
      { activeSubscription: { at: now, product: 'paper' } },
      'subscriptions_product',
    ],
    ['users with any active subscription', { activeSubscription: { at: now } }, 'subscriptions_pkey'],
  ] as const) {
    it(`serves ${name} from ${index}, a seek at any depth and in either order`, async () => {
      for (const more of [{}, { afterId: '90000' }, { afterId: '90000', descending: true }]) {
        const text = await plan(await page({ ...query, ...more }));
        assertSeeks(text, 'afterId' in more);
        assert.match(text, new RegExp(`using ${index}\\b`), text);
      }
    });
  }

  it('serves users with an active subscription giving print past the scheduled ones, by seeks', async () => {
    const text = await plan(await page({ activeSubscription: { at: now, resource: 'print' }, afterId: '90000' }));
    assertSeeks(text);
    assert.match(text, /(using|Bitmap Index Scan on) subscriptions_pending_start\b/, text);
  });

  it('finds that no one has an active subscription of a product or resource whose subscriptions have yet to start, without reading them', async () => {
    // Every subscription of the product launch, which gives print-online to those naming no
    // resource, starts in 20 days. A planner sure from the statistics of each column alone that
    // users with one started were common walked every subscription in user order to find none.
    for (const activeSubscription of [
      { at: now, product: 'launch' },
      { at: now, resource: 'print-online' },
      { at: now, resource: 'print', product: 'launch' },
    ] as const) {
      const text = await plan(await page({ activeSubscription }), '(ANALYZE)');
      assert.doesNotMatch(text, /using subscriptions_pkey\b/, text);
      for (const [, removed] of text.matchAll(/Rows Removed by (?:Join )?Filter: (\d+)/g)) {
        assert.ok(Number(removed) < 1000, `${removed} rows read and passed over:\n${text}`);
      }
    }
  });

  it('serves a newsletter with an active subscription, and a domain with both, by seeks', async () => {
    const subscription = { at: now, resource: 'print' } as const;
    assertSeeks(await plan(await page({ newsletter: 'daily', activeSubscription: subscription, afterId: '90000' })));
    assertSeeks(
      await plan(
        await page({ newsletter: 'daily', activeSubscription: subscription, email: { domain: 'd7.example' } }),
      ),
    );
  });

  it("answers a user's access from the user's own subscriptions", async () => {
    const text = await plan(await accessStatement(store, '77', now));
    assertSeeks(text);
    assert.match(text, /using subscriptions_pkey on subscriptions/, text);
  });

  it("counts a product's active subscriptions and a newsletter's members from their indexes", async () => {
    // Those started, by the product's key of them; those whose start has come, by that start (a
    // count, which may take them out of order).
    const product = await plan(productWithCountQuery('rare', now, 'postgres'));
    assert.doesNotMatch(product, /Seq Scan on subscriptions\b/, product);
    assert.match(
      product,
      /using subscriptions_product on subscriptions s\b[^\n]*\n\s+Index Cond: \(\(product_id = 'rare'::text\) AND \(CASE WHEN \(pending_start IS NULL\) THEN product_id/,
      product,
    );
    assert.match(product, /(using|Bitmap Index Scan on) subscriptions_pending_start\b/, product);
    const newsletter = await plan(newsletterWithCountQuery('rare'));
    assertSeeks(newsletter);
    assert.match(newsletter, /using user_newsletters_newsletter\b/, newsletter);
  });
});

describe('PostgreSQL search keys (filter[q])', { skip }, () => {
  it('are filled for the users there were when migration 19 adds them', async () => {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url });
    await migratePostgres(
      pool,
      postgresMigrations.filter((m) => m.version < 19),
    );
    await pool.end();
    await admin(
      `INSERT INTO users (email, email_lower, email_domain, family_name, given_name)
       VALUES ('before@example.com', 'before@example.com', 'example.com', 'Éclair', 'Anaïs')`,
      [],
      schema.name,
    );
    const store = await openPostgresStore({ url: schema.url });
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
    const store = await openPostgresStore({ url: (await freshSchema()).url });
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

describe('PostgreSQL query plan of the search at 100,000 users', { skip }, () => {
  let schema: TestSchema;
  before(async () => {
    schema = await freshSchema();
    await (await openPostgresStore({ url: schema.url })).close();
    await admin(
      `INSERT INTO users (email, email_lower, email_domain, family_name, family_key, given_name, given_key,
         circulation_number)
       SELECT 'u' || i || '@d' || (i % 2000) || '.example', 'u' || i || '@d' || (i % 2000) || '.example',
              'd' || (i % 2000) || '.example', 'Reader' || (i % 5000), 'reader' || (i % 5000),
              'Given' || (i % 500), 'given' || (i % 500), 'C-' || i
       FROM generate_series(1, 100000) AS i`,
      [],
      schema.name,
    );
    // One user in fifty a Lovelace: a name whose holders fill a search's candidates many times over.
    await admin(
      `UPDATE users SET family_name = 'Lovelace', family_key = 'lovelace' WHERE id % 50 = 0`,
      [],
      schema.name,
    );
    await admin(`INSERT INTO newsletters (id, name) VALUES ('weekly', 'Weekly')`, [], schema.name);
    await admin(
      `INSERT INTO user_newsletters (user_id, newsletter_id) SELECT id, 'weekly' FROM users WHERE id % 3 = 0`,
      [],
      schema.name,
    );
    await vacuumAnalyze(schema.name);
  });

  /** The plan of a page of the search for `q`, with the other parts of the query `more` gives. */
  async function searchPlan(q: string, more: Partial<UserListQuery>): Promise<string> {
    const { text, values } = userPageIds({ search: searchRange(q), offset: 0, limit: 21, ...more }, 'postgres', [], {
      limit: PAGE_READ_LIMIT,
    }).render('postgres');
    const rows = await admin<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values, schema.name);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  it('reads a range of each search index and the circulation number and id by equality, scanning no table', async () => {
    for (const more of [{}, { afterId: '90000' }, { afterId: '90000', descending: true }, { newsletter: 'weekly' }]) {
      for (const q of ['reader1234', '1234']) {
        const shown = await searchPlan(q, more);
        assert.doesNotMatch(shown, /Seq Scan/, shown);
        for (const index of ['users_email_key', 'users_family_key', 'users_given_key', 'users_circulation_number']) {
          assert.match(shown, new RegExp(`using ${index}\\b`), shown);
        }
      }
    }
  });

  it('checks the newsletter and the active subscription of the users a search finds, not of every user in id order', async () => {
    const at = Math.floor(Date.now() / 1000);
    for (const more of [{ newsletter: 'nobody' }, { activeSubscription: { at } }, { newsletter: 'weekly' }]) {
      const shown = await searchPlan('reader1', more);
      // A probe made for each user (a SubPlan filtering the users' key) checks every user in id order.
      assert.doesNotMatch(shown, /SubPlan/, shown);
    }
  });

  it("reads the words of a search by the longest, from each name's indexes, scanning no table", async () => {
    for (const more of [{}, { afterId: '90000' }]) {
      const shown = await searchPlan('given12 reader1234', more);
      assert.doesNotMatch(shown, /Seq Scan/, shown);
      for (const index of ['users_family_key', 'users_given_key', 'users_family_compact', 'users_given_compact']) {
        assert.match(shown, new RegExp(`using ${index}\\b`), shown);
      }
    }
  });

  it('reads the names one typo from a text from their trigram indexes, scanning no table', async () => {
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const { text, values } = similarNamesQuery(await trigramSchema(client), 'readr1234', SIMILAR_CANDIDATES).render(
        'postgres',
      );
      await client.query('BEGIN');
      await client.query(SIMILAR_NAMES_PLAN);
      const rows = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows;
      await client.query('COMMIT');
      const shown = rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.doesNotMatch(shown, /Seq Scan/, shown);
      for (const index of ['users_family_similar', 'users_given_similar']) {
        assert.match(shown, new RegExp(`Bitmap Index Scan on ${index}\\b`), shown);
      }
    } finally {
      await client.end();
    }
  });

  it("reads the candidates one typo from a frequent name from that name's key index, the rest from the trigram index", async () => {
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      const frequent = await readFrequentNames(client, SIMILAR_CANDIDATES);
      // 2,000 Lovelaces; no Reader name has more than 20 holders.
      assert.ok(frequent.family.includes('lovelace'), JSON.stringify(frequent));
      assert.ok(!frequent.family.some((name) => name.startsWith('reader')), JSON.stringify(frequent));
      const close = closeTo('lovelase', frequent);
      assert.deepEqual(close.family, ['lovelace']);
      const { text, values } = similarNamesQuery(
        await trigramSchema(client),
        'lovelase',
        SIMILAR_CANDIDATES,
        close,
      ).render('postgres');
      await client.query('BEGIN');
      await client.query(SIMILAR_NAMES_PLAN);
      const rows = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows;
      const found = (await client.query<{ id: number }>(text, values)).rows;
      await client.query('COMMIT');
      const shown = rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(shown, /Index Scan using users_family_key\b/, shown);
      assert.doesNotMatch(shown, /users_family_similar|Seq Scan/, shown);
      assert.match(shown, /Bitmap Index Scan on users_given_similar\b/, shown);
      // The cut, of the Lovelaces in id order.
      assert.deepEqual(
        found.map((row) => Number(row.id)),
        Array.from({ length: SIMILAR_CANDIDATES }, (_, i) => 50 * (i + 1)),
      );
    } finally {
      await client.end();
    }
  });

  it('seeks a text of one or two characters in id order in each index, gathering no range', async () => {
    for (const more of [{}, { afterId: '90000' }, { afterId: '90000', descending: true }]) {
      const shown = await searchPlan('re', more);
      assert.doesNotMatch(shown, /Seq Scan|Bitmap|>= 're'/, shown);
      for (const index of ['users_email_key', 'users_family_key', 'users_given_key']) {
        assert.match(shown, new RegExp(`Index Only Scan (Backward )?using ${index}\\b`), shown);
      }
    }
  });
});
