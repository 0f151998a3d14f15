/**
 * PostgreSQL for the tests: every store under test gets a schema of its own in the test
 * database, dropped afterwards, so runs never see each other's rows. Under CI=true an
 * unreachable server fails the run (with how to start it); elsewhere its tests are skipped
 * with the same message.
 */
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const HOW_TO_START =
  `PostgreSQL is not reachable at ${TEST_DATABASE_URL}. Start it with ` +
  '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` ' +
  '(user postgres, trust auth, database test), or point TEST_DATABASE_URL at a server.';

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `${HOW_TO_START} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

const unreachable = await probe();
if (unreachable && process.env.CI === 'true') throw new Error(unreachable);
if (unreachable) process.stderr.write(`PostgreSQL tests skipped: ${unreachable}\n`);

/** Undefined when PostgreSQL can be tested; otherwise why not (only ever outside CI). */
export const postgresSkipReason: string | undefined = unreachable;

let counter = 0;

export interface TestSchema {
  /** A DATABASE_URL whose connections use only this schema. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestSchema(): Promise<TestSchema> {
  counter += 1;
  const name = `circulation_test_${process.pid}_${counter}_${Date.now().toString(36)}`;
  await admin(`CREATE SCHEMA ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: url.href,
    name,
    drop: async () => {
      await admin(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    },
  };
}

/** Runs one statement on its own connection to the test database. */
export async function admin<T extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
  searchPath?: string,
): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    if (searchPath) await client.query(`SET search_path = ${searchPath}`);
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
