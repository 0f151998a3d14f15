/**
 * A single-node PostgreSQL database moved onto Citus: made and filled through the API on plain
 * PostgreSQL, restored on a coordinator as it was (pg_dump, psql), then `circulation migrate`
 * (the built command) lays it out. Every table ends up where the layout says, with the same
 * rows as on the single node: the same count and checksum, table by table. And a database laid
 * out on Citus at an older migration, brought up to date there.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CITUS_LAYOUT, type CitusLayout } from '../../src/store/postgres/citus.js';
import { toUserFields } from '../../src/domain/user.js';
import pg from 'pg';
import { postgresMigrations } from '../../src/store/postgres/migrations.js';
import { KEPT } from '../../src/store/sql/kept-runs.js';
import { migratePostgres, openPostgresStore } from '../../src/store/postgres/open.js';
import {
  CITUS_URL,
  citusSkipReason,
  createCitusSchema,
  readerInEveryTable,
  type CitusSchema,
} from '../support/citus.js';
import { AUDIT, createSubscription, createUser, subscriptionDocument } from '../support/fixtures.js';
import { dropSchemaOn, postgresSkipReason, statementOn, TEST_DATABASE_URL } from '../support/postgres.js';
import { runCommand } from '../support/process.js';
import { startService, type Service } from '../support/service.js';
import { createStaff, signInSession } from '../support/staff.js';

const TABLES = Object.keys(CITUS_LAYOUT);

const NEW_SUBSCRIPTION = {
  dateStarted: 0,
  dateEnded: null,
  externalIdentifier: 'after the move',
  license: null,
  resource: null,
  trial: false,
  productId: null,
  deliveryDays: null,
  ipRanges: [],
  emailDomains: [],
  seats: null,
};

/** Every table's row count and a checksum of its rows (as text, in one order). */
async function contents(url: string, schema: string): Promise<Record<string, { rows: number; md5: string }>> {
  const result: Record<string, { rows: number; md5: string }> = {};
  for (const table of TABLES) {
    const [row] = await statementOn<{ rows: number; md5: string }>(
      url,
      `SELECT count(*)::int AS rows, md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS md5
       FROM ${table} t`,
      [],
      schema,
    );
    result[table] = row as { rows: number; md5: string };
  }
  return result;
}

/** The schema's URL on the server at `serverUrl`, as the service takes it. */
function schemaUrl(serverUrl: string, schema: string): string {
  const url = new URL(serverUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

describe('a single-node database moved onto Citus', { skip: citusSkipReason ?? postgresSkipReason }, () => {
  let single: Service;
  let schema: string;
  let onSingleNode: Awaited<ReturnType<typeof contents>>;
  before(async () => {
    single = await startService('PostgreSQL');
    schema = new URL(single.databaseUrl).searchParams.get('options')!.replace('-c search_path=', '');
    for (let i = 0; i < 3; i += 1) await readerInEveryTable(single, randomBytes(6).toString('hex'));
    const reader = await createUser(single.client, { newsletters: { add: ['sports'] } });
    const withProduct = await single.client.post(
      `/users/${reader}/subscriptions`,
      subscriptionDocument({}, { product: { data: { type: 'products', id: 'digital-monthly' } } }),
    );
    assert.equal(withProduct.status, 201, withProduct.text);
    await createSubscription(single.client, reader, { resource: 'print' });
    await signInSession(single.client, await createStaff(single.client, 'agent'));
    // Tomorrow's print run, kept on the single node once asked for; a cluster keeps none.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    for (let tries = 0; (await single.sql(`SELECT 1 FROM kept_runs WHERE state = ${KEPT}`)).length === 0; tries += 1) {
      assert.ok(tries < 500, 'the run was not kept within 5 s');
      assert.equal((await single.client.get(`/deliveries?filter[date]=${tomorrow}`)).status, 200);
      await sleep(10);
    }
    onSingleNode = await contents(TEST_DATABASE_URL, schema);
    // The single node's schema, as it is, on the coordinator: tables of plain PostgreSQL there.
    const dump = spawnSync('pg_dump', ['--no-owner', '--no-privileges', `--schema=${schema}`, TEST_DATABASE_URL], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(dump.status, 0, dump.stderr);
    const restore = spawnSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', CITUS_URL as string], {
      input: dump.stdout,
      encoding: 'utf8',
    });
    assert.equal(restore.status, 0, restore.stderr);
  });
  after(async () => {
    await single?.close();
    if (schema) await dropSchemaOn(CITUS_URL as string, schema);
  });

  it('holds rows in every table of the layout before the move', () => {
    assert.deepEqual(
      TABLES.filter((t) => onSingleNode[t]!.rows === 0),
      [],
    );
  });

  it('lays every table out as the layout says with `circulation migrate`', async () => {
    const migrated = runCommand(schemaUrl(CITUS_URL as string, schema), 'migrate');
    assert.equal(migrated.status, 0, migrated.stderr);
    const placed = await statementOn<{
      table: string;
      method: string;
      model: string;
      by: string | null;
      group: number;
    }>(
      CITUS_URL as string,
      `SELECT logicalrelid::regclass::text AS table, partmethod AS method, repmodel AS model,
         column_to_column_name(logicalrelid, partkey) AS by, colocationid AS group
       FROM pg_dist_partition WHERE logicalrelid::regclass::text = ANY($1::text[])`,
      [TABLES],
      schema,
    );
    const of = new Map(placed.map((p) => [p.table, p]));
    for (const [table, layout] of Object.entries(CITUS_LAYOUT) as [string, CitusLayout][]) {
      const place = of.get(table);
      assert.ok(place, `${table} is not laid out`);
      if (layout.kind === 'distributed') {
        assert.deepEqual([place.method, place.by], ['h', layout.by], `${table} is distributed by ${layout.by}`);
        if (layout.colocateWith)
          assert.equal(place.group, of.get(layout.colocateWith)?.group, `${table} beside ${layout.colocateWith}`);
      } else
        assert.deepEqual(
          [place.method, place.model],
          ['n', layout.kind === 'reference' ? 't' : 's'],
          `${table} is ${layout.kind}`,
        );
    }
  });

  it('keeps every row: the same count and checksum in every table as on the single node, but the kept runs', async () => {
    const { kept_runs, kept_deliveries, ...moved } = await contents(CITUS_URL as string, schema);
    const { kept_runs: runs, kept_deliveries: deliveries, ...before } = onSingleNode;
    assert.deepEqual(moved, before);
    assert.deepEqual([kept_runs?.rows, kept_deliveries?.rows], [0, 0]);
    assert.ok(runs && runs.rows > 0 && deliveries && deliveries.rows > 0);
  });

  it('drops the triggers that keep print runs, which would write across shards', async () => {
    const triggers = await statementOn(
      CITUS_URL as string,
      `SELECT tgname FROM pg_trigger WHERE tgname LIKE '%kept_runs%' AND tgrelid::regclass::text = ANY ($1::text[])`,
      [TABLES],
      schema,
    );
    assert.deepEqual(triggers, []);
  });

  it('serves on after the move: a new reader and subscription beside the moved ones', async () => {
    const store = await openPostgresStore({ url: schemaUrl(CITUS_URL as string, schema) });
    try {
      const user = await store.users.create(
        {
          email: `after-move.${process.pid}@example.com`,
          passwordHash: null,
          fields: toUserFields({ familyName: 'Moved' }),
          newsletters: ['daily'],
        },
        AUDIT,
      );
      const subscription = await store.subscriptions.create(user.id, NEW_SUBSCRIPTION, AUDIT);
      assert.ok(subscription, 'the subscription was created');
      const [ids] = await statementOn<{ users: number; subscriptions: number }>(
        CITUS_URL as string,
        `SELECT (SELECT count(DISTINCT id) FROM users)::int AS users,
           (SELECT count(DISTINCT id) FROM subscriptions)::int AS subscriptions`,
        [],
        schema,
      );
      assert.deepEqual(ids, {
        users: onSingleNode.users!.rows + 1,
        subscriptions: onSingleNode.subscriptions!.rows + 1,
      });
      assert.deepEqual((await store.users.get(user.id))?.newsletters, ['daily']);
    } finally {
      await store.close();
    }
  });
});

describe('a Citus database at migration 31 brought up to date', { skip: citusSkipReason }, () => {
  let schema: CitusSchema;
  before(async () => {
    schema = await createCitusSchema();
  });
  after(async () => {
    await schema?.drop();
  });

  it('drops the check of a blank family name on the distributed users and every shard of it (migration 32)', async () => {
    const pool = new pg.Pool({ connectionString: schema.url });
    try {
      const laidOut = await migratePostgres(pool, postgresMigrations.slice(0, 31));
      assert.equal(laidOut, true, 'the database is on a coordinator, and laid out');
      const insert = (email: string, familyName: string) =>
        statementOn<{ id: string }>(
          CITUS_URL as string,
          `INSERT INTO users (email, email_lower, email_domain, family_name) VALUES ($1, $1, 'x.co', $2) RETURNING id`,
          [email, familyName],
          schema.name,
        );
      await assert.rejects(insert('blank@x.co', ''), /check constraint/);
      const [kept] = await insert('kept@x.co', 'Kept');
      await migratePostgres(pool, postgresMigrations);
      // Readers land on shards by their ids: enough of them for every shard to take one.
      for (let i = 0; i < 64; i += 1) await insert(`blank-${i}@x.co`, '');
      const [counts] = await statementOn<{ blank: number; kept: string }>(
        CITUS_URL as string,
        `SELECT count(*) FILTER (WHERE family_name = '')::int AS blank,
           max(family_name) FILTER (WHERE id = $1) AS kept FROM users`,
        [kept!.id],
        schema.name,
      );
      assert.deepEqual(counts, { blank: 64, kept: 'Kept' });
    } finally {
      await pool.end();
    }
  });
});
