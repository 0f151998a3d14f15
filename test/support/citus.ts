/**
 * Citus for the tests: CITUS_URL names a coordinator's database (`.ci/run` makes a throwaway
 * cluster with ../shared/citus and sets it). Every store under test gets a schema of its own in
 * that database (Citus creates and drops it on the workers too), so runs never collide. Under
 * CI=true a missing or unreachable coordinator fails the run; elsewhere its tests are skipped,
 * saying so.
 */
import pg from 'pg';

export const CITUS_URL = process.env.CITUS_URL;

const HOW_TO_RUN =
  'The Citus tests need CITUS_URL, a database on a Citus coordinator with workers registered: ' +
  '`../shared/citus/install`, `../shared/citus/cluster start DIR 9700`, then ' +
  '`CITUS_URL=$(../shared/citus/cluster createdb DIR circulation_test)`.';

async function probe(): Promise<string | undefined> {
  if (!CITUS_URL) return `${HOW_TO_RUN} (CITUS_URL is not set)`;
  const client = new pg.Client({ connectionString: CITUS_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_dist_node WHERE groupid <> 0');
    if (rows[0].n === 0) return `${HOW_TO_RUN} (${CITUS_URL} has no workers)`;
    return undefined;
  } catch (error) {
    return `${HOW_TO_RUN} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

const unavailable = await probe();
if (unavailable && process.env.CI === 'true') throw new Error(unavailable);
if (unavailable) process.stderr.write(`Citus tests skipped: ${unavailable}\n`);

/** Undefined when Citus can be tested; otherwise why not (only ever outside CI). */
export const citusSkipReason: string | undefined = unavailable;

let counter = 0;

export interface CitusSchema {
  /** A DATABASE_URL whose connections use only this schema. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createCitusSchema(): Promise<CitusSchema> {
  counter += 1;
  const name = `circulation_test_${process.pid}_${counter}_${Date.now().toString(36)}`;
  await onCoordinator(`CREATE SCHEMA ${name}`);
  const url = new URL(CITUS_URL as string);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: url.href,
    name,
    drop: async () => {
      await onCoordinator(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    },
  };
}

/** Runs one statement on its own connection to the coordinator, in `searchPath` when given. */
export async function onCoordinator<T extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
  searchPath?: string,
): Promise<T[]> {
  const client = new pg.Client({ connectionString: CITUS_URL });
  await client.connect();
  try {
    if (searchPath) await client.query(`SET search_path = ${searchPath}`);
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
