/**
 * The stores every store and API test runs against: SQLite in a fresh temporary file and
 * PostgreSQL in a fresh schema. `forEachStore` wraps a test file's suites once per store. Citus
 * is a third kind only the files that opt in run on (`forEachStoreAndCitus` in citus.ts): a fresh
 * schema on the coordinator, opened with the PostgreSQL store.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Store, StoreOptions } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/open.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';
import {
  createTestSchema,
  emptyOrDrop,
  noteFreshlyMigrated,
  postgresSkipReason,
  takeEmptiedSchema,
  type TestSchema,
} from './postgres.js';

export type StoreKind = 'SQLite' | 'PostgreSQL' | 'Citus';
/** The stores every test file runs on; Citus only where a file asks for it. */
export const STORE_KINDS: readonly StoreKind[] = ['SQLite', 'PostgreSQL'];

export type Row = Record<string, unknown>;

export interface TestStore {
  kind: StoreKind;
  store: Store;
  /** The DATABASE_URL of this store, for a service process of its own. */
  databaseUrl: string;
  /** Runs SQL directly on the database, behind the service's back; `?` marks a parameter. */
  sql(text: string, params?: unknown[]): Promise<Row[]>;
  /** Every row the service keeps, in a fixed order: equal snapshots mean an unchanged store. */
  snapshot(): Promise<string>;
  /** Everything the database holds, as raw as it can be read: the files' bytes, or every table's rows. */
  rawDump(): Promise<string>;
  close(): Promise<void>;
}

/** Defines `body`'s suites once for each store, each under the store's name. */
export function forEachStore(body: (kind: StoreKind) => void): void {
  for (const kind of STORE_KINDS) {
    const skip = kind === 'PostgreSQL' ? postgresSkipReason : undefined;
    describe(kind, { skip }, () => body(kind));
  }
}

/** A database of this kind that nothing else uses, with the schema of this release. */
export async function openTestStore(kind: StoreKind, options: StoreOptions = {}): Promise<TestStore> {
  const store =
    kind === 'SQLite'
      ? await sqliteTestStore(options)
      : kind === 'Citus'
        ? await postgresTestStore(options, await citusSchema(), false)
        : await postgresTestStore(options, takeEmptiedSchema() ?? (await createTestSchema()), true);
  return {
    ...store,
    kind,
    async snapshot() {
      const tables = await Promise.all([
        store.sql('SELECT * FROM users ORDER BY id'),
        store.sql('SELECT * FROM user_newsletters ORDER BY user_id, newsletter_id'),
        store.sql('SELECT * FROM newsletter_consents ORDER BY user_id, newsletter_id'),
        store.sql('SELECT * FROM newsletter_consent_changes ORDER BY id'),
        store.sql('SELECT * FROM subscriptions ORDER BY id'),
        store.sql('SELECT * FROM webhooks ORDER BY id'),
        store.sql('SELECT * FROM webhook_deliveries ORDER BY id'),
        store.sql('SELECT * FROM products ORDER BY id'),
        store.sql('SELECT * FROM newsletters ORDER BY id'),
      ]);
      return JSON.stringify(tables);
    },
  };
}

/**
 * A database migrated once a test file, whose copy each store with the default options starts
 * from: migrating is a tenth of a test service's start. The copy keeps its mode (0600).
 */
let migratedSqlite: Promise<string> | undefined;

function migratedSqliteFile(): Promise<string> {
  migratedSqlite ??= (async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'circulation-migrated-')), 'migrated.db');
    await openSqliteStore({ path }).close();
    process.once('exit', () => rmSync(dirname(path), { recursive: true, force: true }));
    return path;
  })();
  return migratedSqlite;
}

async function sqliteTestStore(options: StoreOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'circulation-test-'));
  const path = join(dir, 'test.db');
  if (Object.keys(options).length === 0) copyFileSync(await migratedSqliteFile(), path);
  const store = openSqliteStore({ path, ...options });
  const raw = new Database(path, { readonly: true });
  const prepared = new Map<string, Database.Statement>();
  return {
    store,
    databaseUrl: `sqlite:${path}`,
    async rawDump() {
      // The main file and the write-ahead log: a value may sit in either.
      return readdirSync(dir)
        .map((file) => readFileSync(join(dir, file)).toString('latin1'))
        .join('\n');
    },
    async sql(text: string, params: unknown[] = []) {
      // Prepared once: the snapshots of fuzzing run the same seven statements thousands of times.
      let statement = prepared.get(text);
      if (!statement) prepared.set(text, (statement = raw.prepare(text)));
      return statement.all(...params) as Row[];
    },
    async close() {
      raw.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Imported when first needed, so that only the files that run on Citus check for a coordinator
 * (and, under CI=true, fail without one).
 */
async function citusSchema(): Promise<TestSchema> {
  const { createCitusSchema } = await import('./citus.js');
  return createCitusSchema();
}

/** A store in `schema`; closed, a `reusable` schema is emptied for the next store of the file. */
async function postgresTestStore(options: StoreOptions, schema: TestSchema, reusable: boolean) {
  // A connection is waited for as long as a test service process waits (support/process.ts): on a
  // loaded machine, 50 requests queued on one reader's row outlast the 2 s of production.
  const store = await openPostgresStore({ url: schema.url, poolSize: 5, connectTimeoutMs: 15_000, ...options });
  const raw = new pg.Client({ connectionString: schema.url });
  await raw.connect();
  if (reusable) await noteFreshlyMigrated(raw);
  return {
    store,
    databaseUrl: schema.url,
    async rawDump() {
      const { rows } = await raw.query<{ tablename: string }>(
        'SELECT tablename FROM pg_tables WHERE schemaname = current_schema()',
      );
      const dumps = await Promise.all(
        rows.map(async ({ tablename }) => JSON.stringify((await raw.query(`SELECT * FROM ${tablename}`)).rows)),
      );
      return dumps.join('\n');
    },
    async sql(text: string, params: unknown[] = []) {
      let n = 0;
      return (
        await raw.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as Row[];
    },
    async close() {
      await raw.end();
      await store.close();
      await (reusable ? emptyOrDrop(schema) : schema.drop());
    },
  };
}
