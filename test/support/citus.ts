/**
 * Citus for the tests: CITUS_URL names a coordinator's database (`.ci/run` makes a throwaway
 * cluster with ../shared/citus and sets it). Every store under test gets a schema of its own in
 * that database (Citus creates and drops it on the workers too), so runs never collide. Under
 * CI=true a missing or unreachable coordinator fails the run; elsewhere its tests are skipped,
 * saying so.
 */
import { describe } from 'node:test';
import type pg from 'pg';
import { createTestSchema, skipUnlessCi, whyUntestable, type TestSchema } from './postgres.js';
import { forEachStore, type StoreKind } from './stores.js';

export const CITUS_URL = process.env.CITUS_URL;

const HOW_TO_RUN =
  'The Citus tests need CITUS_URL, a database on a Citus coordinator with workers registered: ' +
  '`../shared/citus/install`, `../shared/citus/cluster start DIR 9700`, then ' +
  '`CITUS_URL=$(../shared/citus/cluster createdb DIR circulation_test)`.';

async function hasWorkers(client: pg.Client): Promise<string | undefined> {
  const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_dist_node WHERE groupid <> 0');
  return rows[0].n === 0 ? `${CITUS_URL} has no workers` : undefined;
}

/** Undefined when Citus can be tested; otherwise why not (only ever outside CI). */
export const citusSkipReason = skipUnlessCi(
  'Citus',
  CITUS_URL ? await whyUntestable(CITUS_URL, HOW_TO_RUN, hasWorkers) : `${HOW_TO_RUN} (CITUS_URL is not set)`,
);

export type CitusSchema = TestSchema;

/** A schema of its own in the coordinator's database. */
export const createCitusSchema = (): Promise<CitusSchema> => createTestSchema(CITUS_URL as string);

/**
 * `forEachStore`, and once more on Citus: for the files that also run there (the README's Citus
 * section names them), kept few because each adds a cluster's round trips to CI.
 */
export function forEachStoreAndCitus(body: (kind: StoreKind) => void): void {
  forEachStore(body);
  describe('Citus', { skip: citusSkipReason }, () => body('Citus'));
}
