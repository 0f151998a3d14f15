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
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
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
 * VACUUM ANALYZE of a schema's tables, done again for those still behind until every page of them
 * is marked all-visible (for up to 30 s). A transaction open elsewhere on the server, another test
 * file's, keeps VACUUM from marking rows newer than it, and the planner then prices an index-only
 * scan with heap reads and may pick a sequential scan that a vacuumed table would never get. Only
 * this schema's tables: a VACUUM naming none would go through every other file's schema too.
 */
export async function vacuumAnalyze(schemaName: string): Promise<void> {
  const tables = async (behind: boolean) =>
    (
      await admin<{ name: string }>(
        `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind = 'r' AND (NOT $2 OR c.relallvisible < c.relpages)`,
        [schemaName, behind],
      )
    ).map((row) => row.name);
  let pending = await tables(false);
  for (let attempt = 0; attempt < 150 && pending.length > 0; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    await admin(`VACUUM (ANALYZE) ${pending.join(', ')}`);
    pending = await tables(true);
  }
}
