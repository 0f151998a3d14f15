/**
 * PostgreSQL for the tests: every store under test gets a schema of its own in the test
 * database, dropped afterwards, so runs never see each other's rows. Under CI=true an
 * unreachable server fails the run (with how to start it); elsewhere its tests are skipped
 * with the same message. Citus (citus.ts) is tested the same way, on its coordinator.
 */
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const HOW_TO_START =
  `PostgreSQL is not reachable at ${TEST_DATABASE_URL}. Start it with ` +
  '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` ' +
  '(user postgres, trust auth, database test), or point TEST_DATABASE_URL at a server.';

/**
 * Why the server at `url` cannot be tested (`advice`, then what went wrong), or undefined;
 * `check` may find something wrong with a server that answers.
 */
export async function whyUntestable(
  url: string,
  advice: string,
  check: (client: pg.Client) => Promise<string | undefined> = async (client) => {
    await client.query('SELECT 1');
    return undefined;
  },
): Promise<string | undefined> {
  // As long as a test process waits for a connection (support/process.ts): a loaded machine is slow to answer.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  try {
    await client.connect();
    const wrong = await check(client);
    return wrong === undefined ? undefined : `${advice} (${wrong})`;
  } catch (error) {
    return `${advice} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Under CI=true a reason not to test fails the run; elsewhere the tests of `what` are skipped, saying why. */
export function skipUnlessCi(what: string, reason: string | undefined): string | undefined {
  if (reason && process.env.CI === 'true') throw new Error(reason);
  if (reason) process.stderr.write(`${what} tests skipped: ${reason}\n`);
  return reason;
}

/** Undefined when PostgreSQL can be tested; otherwise why not (only ever outside CI). */
export const postgresSkipReason = skipUnlessCi('PostgreSQL', await whyUntestable(TEST_DATABASE_URL, HOW_TO_START));

let counter = 0;

export interface TestSchema {
  /** A DATABASE_URL whose connections use only this schema. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A schema of its own on the server at `serverUrl` (the test database unless told). */
export async function createTestSchema(serverUrl = TEST_DATABASE_URL): Promise<TestSchema> {
  counter += 1;
  const name = `circulation_test_${process.pid}_${counter}_${Date.now().toString(36)}`;
  await statementOn(serverUrl, `CREATE SCHEMA ${name}`);
  const url = new URL(serverUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: url.href,
    name,
    drop: () => dropSchemaOn(serverUrl, name),
  };
}

/**
 * Schemas of this release's tables, emptied and kept for the next store of this test file:
 * emptying one takes about 20 ms where creating and migrating one takes over a second. A schema
 * whose tables, columns, indexes, constraints, triggers, functions or migrations differ from a
 * freshly migrated one (a test altered it) is dropped instead; those left at the end are dropped.
 */
const emptiedSchemas: TestSchema[] = [];
let freshlyMigrated: string | undefined;
let dropsLeftAtExit = false;

/** An emptied schema of this release, or undefined when there is none to take. */
export function takeEmptiedSchema(): TestSchema | undefined {
  return emptiedSchemas.pop();
}

/** Notes what a schema the store has just migrated looks like, the first time it is asked. */
export async function noteFreshlyMigrated(client: pg.ClientBase): Promise<void> {
  freshlyMigrated ??= await layoutOf(client);
}

/** Empties `schema` for the file's next store, or drops it when a test changed its layout. */
export async function emptyOrDrop(schema: TestSchema): Promise<void> {
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  let emptied = false;
  try {
    if (freshlyMigrated !== undefined && (await layoutOf(client)) === freshlyMigrated) {
      const { rows } = await client.query<{ name: string }>(
        `SELECT quote_ident(relname) AS name FROM pg_class
         WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r' AND relname <> 'schema_migrations'`,
      );
      // As replica, the foreign keys' triggers do not fire: the tables empty in any order.
      await client.query(
        `BEGIN; SET LOCAL session_replication_role = replica;
         ${rows.map(({ name }) => `DELETE FROM ${name};`).join('\n')}
         SELECT setval(format('%I', sequencename)::regclass, start_value, false)
         FROM pg_sequences WHERE schemaname = current_schema();
         COMMIT`,
      );
      emptied = true;
    }
  } finally {
    await client.end();
  }
  if (!emptied) return schema.drop();
  if (emptiedSchemas.push(schema) === 1 && !dropsLeftAtExit) {
    dropsLeftAtExit = true;
    process.on('beforeExit', () => {
      for (const left of emptiedSchemas.splice(0)) {
        left.drop().catch((error) => process.stderr.write(`could not drop ${left.name}: ${error}\n`));
      }
    });
  }
}

/** What a schema is made of, as one digest: two schemas of the same layout have the same. */
async function layoutOf(client: pg.ClientBase): Promise<string> {
  const { rows } = await client.query<{ layout: string }>(
    `SELECT md5(string_agg(item, E'\n' ORDER BY item)) AS layout FROM (
       SELECT concat_ws(' ', 'relation', relname, relkind, relpersistence, reloptions::text, relacl::text) AS item
       FROM pg_class WHERE relnamespace = current_schema()::regnamespace
       UNION ALL
       SELECT concat_ws(' ', 'column', c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                        a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid))
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
       UNION ALL
       SELECT concat_ws(' ', 'index', pg_get_indexdef(indexrelid), indisvalid)
       FROM pg_index JOIN pg_class c ON c.oid = indexrelid WHERE c.relnamespace = current_schema()::regnamespace
       UNION ALL
       SELECT concat_ws(' ', 'constraint', conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated)
       FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
       UNION ALL
       SELECT concat_ws(' ', 'trigger', c.relname, tgname, tgenabled, tgfoid::regproc::text, tgtype)
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE c.relnamespace = current_schema()::regnamespace AND NOT tgisinternal
       UNION ALL
       SELECT concat_ws(' ', 'function', proname, pg_get_function_arguments(oid), prosrc)
       FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
       UNION ALL
       SELECT concat_ws(' ', 'type', typname) FROM pg_type WHERE typnamespace = current_schema()::regnamespace
       UNION ALL
       SELECT concat_ws(' ', 'migration', version) FROM schema_migrations
     ) items`,
  );
  return rows[0]!.layout;
}

/**
 * Drops a schema and everything in it. On Citus, dropping distributed tables while another test
 * file creates or drops its own can be cancelled as a distributed deadlock (seen in CI on the
 * migration test's clean-up), so that is tried again a few times.
 */
export async function dropSchemaOn(serverUrl: string, name: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await statementOn(serverUrl, `DROP SCHEMA IF EXISTS ${name} CASCADE`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/** Runs one statement on its own connection to the test database. */
export async function admin<T extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
  searchPath?: string,
): Promise<T[]> {
  return statementOn<T>(TEST_DATABASE_URL, sql, params, searchPath);
}

/** Runs one statement on its own connection to the database at `url`, in `searchPath` when given. */
export async function statementOn<T extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
  searchPath?: string,
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    if (searchPath) await client.query(`SET search_path = ${searchPath}`);
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A schema's tables, each written with its schema; with `onlyBehind`, those not yet marked
 * all-visible to the last page.
 */
async function tablesOf(schemaName: string, onlyBehind = false): Promise<string[]> {
  const rows = await admin<{ name: string }>(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r' AND (NOT $2 OR c.relallvisible < c.relpages)`,
    [schemaName, onlyBehind],
  );
  return rows.map((row) => row.name);
}

/**
 * ANALYZE of a schema's tables alone: an ANALYZE naming none goes through every table of the
 * database, every other test file's schemas with them, and took two seconds and more a call.
 */
export async function analyzeSchema(schemaName: string): Promise<void> {
  await admin(`ANALYZE ${(await tablesOf(schemaName)).join(', ')}`);
}

/**
 * VACUUM ANALYZE of a schema's tables, done again for those still behind until every page of them
 * is marked all-visible (for up to 30 s). A transaction open elsewhere on the server, another test
 * file's, keeps VACUUM from marking rows newer than it, and the planner then prices an index-only
 * scan with heap reads and may pick a sequential scan that a vacuumed table would never get. Only
 * this schema's tables: a VACUUM naming none would go through every other file's schema too.
 */
export async function vacuumAnalyze(schemaName: string): Promise<void> {
  let pending = await tablesOf(schemaName);
  for (let attempt = 0; attempt < 150 && pending.length > 0; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    await admin(`VACUUM (ANALYZE) ${pending.join(', ')}`);
    pending = await tablesOf(schemaName, true);
  }
}
