/**
 * The print runs of the next dates kept on PostgreSQL (sql/kept-runs.ts).
 *
 * A trigger keeps a kept run's rows right whichever statement, process or command writes: after
 * every write of a subscription, hold, temporary address or complaint, and of a reader's address,
 * the reader's kept deliveries are written again from what the database holds; a product changing
 * its delivery days or what it gives drops every kept run instead, to be built again when next
 * asked for. Two transactions writing one reader's records rewrite them one after the other: the
 * second waits on the reader's row (FOR NO KEY UPDATE) for the first to end, and its statements
 * then see what the first wrote, as each statement of a READ COMMITTED transaction does.
 *
 * A build writes a range of subscription ids at a time, each step holding the kept runs' advisory
 * lock alone, which every write of those tables holds shared until it ends: so a step reads no
 * write under way, and a write after it rewrites what the step wrote. A builder claims the run
 * first (of the processes sharing the database, one builds it), clears what an earlier run of the
 * date left, and only then lets the trigger keep it, so that clearing never removes what a
 * trigger wrote.
 *
 * A Citus cluster keeps no run: the trigger would write the shards of other readers from a shard.
 * Its triggers are dropped there (a database moved onto Citus had them), and every page reads the
 * subscriptions.
 */
import type pg from 'pg';
import type { RunDate } from '../../domain/delivery.js';
import { nowInSeconds } from '../../domain/dates.js';
import type { RenderedDelivery, RunPageQuery } from '../ports/deliveries.js';
import { raw, sql } from '../sql/builder.js';
import {
  BUILD_STEP,
  BUILDING,
  Builds,
  CLEARING,
  KEPT,
  KEPT_COLUMNS,
  LAST_SUBSCRIPTION,
  PRODUCT_COLUMNS,
  READERS_RECORDS,
  advanceQuery,
  claimOfQuery,
  claimQuery,
  clearStepQuery,
  dropBegunQuery,
  held,
  keepable,
  keptByTriggers,
  keptDeliveriesOfReaders,
  keptDeliveriesOfStep,
  keptOrBuildingQuery,
  keptPageQuery,
  nextKeptDateQuery,
  toClaim,
  toKeptDelivery,
} from '../sql/kept-runs.js';
import { ADDRESS_COLUMNS } from '../sql/temporary-addresses.js';
import { preparedName, rowsOn, type PostgresDatabase } from './database.js';

const REWRITE = 'kept_runs_rewrite';
const DROP = 'kept_runs_drop';

/** The kept runs' advisory lock (two keys: this, and the schema's hash), shared by writes, held alone by a build step. */
const LOCK = `${7_305_120}, hashtext(current_schema())`;

/**
 * How the rewriting function's statements are planned: once per connection, for any reader. Its
 * statement took 2.4 ms to plan for each reader and 0.3 to run, and PostgreSQL kept planning it
 * anew, as the generic plan's estimate was no cheaper; the generic plan runs as fast.
 */
const GENERIC_PLANS = 'plan_cache_mode=force_generic_plan';

/** What an insert of kept rows does with a row kept already: writes it as it now is. */
const UPSERT = `ON CONFLICT (user_id, date, subscription_id) DO UPDATE SET
    product_id = EXCLUDED.product_id, postal_code = EXCLUDED.postal_code, json = EXCLUDED.json`;

/** The rewriting function's body: the readers a row names, their rows held, their kept deliveries written again. */
function rewriteBody(): string {
  return `
DECLARE
  readers bigint[];
BEGIN
  PERFORM pg_advisory_xact_lock_shared(${LOCK});
  IF NOT EXISTS (SELECT 1 FROM kept_runs WHERE ${keptByTriggers('postgres')}) THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'users' THEN
    readers := ARRAY[NEW.id];
  ELSIF TG_OP = 'INSERT' THEN
    readers := ARRAY[NEW.user_id];
  ELSIF TG_OP = 'DELETE' THEN
    readers := ARRAY[OLD.user_id];
  ELSE
    readers := ARRAY[OLD.user_id, NEW.user_id];
  END IF;
  PERFORM 1 FROM users WHERE id = ANY (readers) ORDER BY id FOR NO KEY UPDATE;
  DELETE FROM kept_deliveries WHERE user_id = ANY (readers);
  INSERT INTO kept_deliveries (${KEPT_COLUMNS}) ${keptDeliveriesOfReaders('postgres', 'SELECT unnest(readers)')}
  ${UPSERT};
  RETURN NULL;
END`;
}

const DROP_BODY = `
BEGIN
  PERFORM pg_advisory_xact_lock_shared(${LOCK});
  DELETE FROM kept_runs;
  RETURN NULL;
END`;

/** The triggers, by name, with their statements. */
function triggers(): Map<string, string> {
  const made = new Map<string, string>();
  for (const table of READERS_RECORDS) {
    made.set(
      `${table}_kept_runs`,
      `CREATE TRIGGER ${table}_kept_runs AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${REWRITE}()`,
    );
  }
  made.set(
    'users_kept_runs',
    `CREATE TRIGGER users_kept_runs AFTER UPDATE OF ${ADDRESS_COLUMNS.join(', ')} ON users FOR EACH ROW EXECUTE FUNCTION ${REWRITE}()`,
  );
  made.set(
    'products_kept_runs',
    `CREATE TRIGGER products_kept_runs AFTER UPDATE OF ${PRODUCT_COLUMNS} ON products FOR EACH ROW EXECUTE FUNCTION ${DROP}()`,
  );
  return made;
}

/** The tables the triggers are on, by trigger name. */
const tableOf = (trigger: string) => trigger.slice(0, -'_kept_runs'.length);

/**
 * Makes the trigger of this release, unless the database has it; answers whether it did. Run
 * under the migration lock. A Citus coordinator (`citus`) has none: the layout dropped any a
 * single node had (citus.ts).
 */
export async function keepRunsByTrigger(client: pg.ClientBase, citus: boolean): Promise<boolean> {
  if (citus) return false;
  const rewrite = rewriteBody();
  const statements = triggers();
  const { rows } = await client.query<{ name: string; source: string | null }>(
    `SELECT t.tgname AS name, p.prosrc || coalesce(array_to_string(p.proconfig, ' '), '') AS source
     FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE t.tgname LIKE '%\\_kept\\_runs' AND t.tgrelid::regclass::text = ANY ($1::text[]) AND NOT t.tgisinternal`,
    [[...statements.keys()].map(tableOf)],
  );
  const current =
    rows.length === statements.size &&
    rows.every(
      (row) =>
        statements.has(row.name) &&
        row.source === (row.name === 'products_kept_runs' ? DROP_BODY : `${rewrite}${GENERIC_PLANS}`),
    );
  if (current) return false;
  await client.query('BEGIN');
  try {
    for (const name of statements.keys()) await client.query(`DROP TRIGGER IF EXISTS ${name} ON ${tableOf(name)}`);
    await client.query(
      `CREATE OR REPLACE FUNCTION ${REWRITE}() RETURNS trigger LANGUAGE plpgsql SET ${GENERIC_PLANS}
       AS $body$${rewrite}$body$`,
    );
    await client.query(
      `CREATE OR REPLACE FUNCTION ${DROP}() RETURNS trigger LANGUAGE plpgsql AS $body$${DROP_BODY}$body$`,
    );
    for (const statement of statements.values()) await client.query(statement);
    // Kept by another trigger, or by none: built again when asked for, their rows cleared then.
    await client.query('DELETE FROM kept_runs');
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

export interface PostgresKeptRuns {
  /** A page of the run if it is kept and may answer; else nothing, and its build begun if it is one to keep. */
  page(run: RunDate, query: RunPageQuery): Promise<RenderedDelivery[] | undefined>;
  /** Stops a build under way at its next step, and answers once it has. */
  stop(): Promise<void>;
}

export function postgresKeptRuns(database: PostgresDatabase): PostgresKeptRuns {
  const builds = new Builds();
  const claimOf = async (client: pg.ClientBase | undefined, date: number) =>
    toClaim((client ? await rowsOn(client, claimOfQuery(date)) : await database.rows(claimOfQuery(date)))[0]);

  /** Claims the run at `now` unless another builder holds it or it is kept; answers whether it did. */
  async function claimed(run: RunDate, now: number): Promise<boolean> {
    return database.transaction(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
      if (held(await claimOf(client, run.date), now)) return false;
      await rowsOn(client, dropBegunQuery('postgres', now));
      await rowsOn(client, claimQuery(run, 'postgres', now));
      return true;
    });
  }

  /**
   * Deletes the rows of every date no run being built or kept has (left by a run dropped, or
   * begun), a step at a time, each within a request's statement timeout at any size.
   */
  async function clear(): Promise<boolean> {
    const next = async (after: number) => (await database.rows(nextKeptDateQuery(after)))[0]?.date as number | null;
    for (let date = await next(-1); date !== null; date = await next(date)) {
      if ((await database.rows(keptOrBuildingQuery(date))).length > 0) continue;
      while ((await database.changes(clearStepQuery(date))) > 0) if (builds.stopped) return false;
    }
    return true;
  }

  async function build(run: RunDate): Promise<void> {
    let claimedAt = nowInSeconds();
    if (!(await claimed(run, claimedAt))) return;
    if (!(await clear())) return;
    /** Moves the claim on, into `to`, in the transaction of `client`; answers whether it was still this builder's. */
    const moved = async (client: pg.ClientBase, from: number, to: number) => {
      const at = nowInSeconds();
      const { text, values } = advanceQuery(run.date, 'postgres', { from, to, claimedAt, at }).render('postgres');
      const { rowCount } = await client.query(text, values);
      claimedAt = at;
      return (rowCount ?? 0) > 0;
    };
    if (builds.stopped || !(await database.transaction((client) => moved(client, CLEARING, BUILDING)))) return;
    const last = Number((await database.rows(LAST_SUBSCRIPTION))[0]?.last);
    for (let after = 0; after < last; after += BUILD_STEP) {
      const step = keptDeliveriesOfStep('postgres', run.date, after, after + BUILD_STEP);
      const going = await database.transaction(async (client) => {
        await client.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
        if (!(await moved(client, BUILDING, BUILDING))) return false;
        await rowsOn(client, sql`INSERT INTO kept_deliveries (${raw(KEPT_COLUMNS)}) ${step} ${raw(UPSERT)}`);
        return true;
      });
      if (!going || builds.stopped) return;
    }
    await database.transaction((client) => moved(client, BUILDING, KEPT));
  }

  return {
    async page(run, query) {
      const now = nowInSeconds();
      // A run kept is one to keep until it begins: any other is read from the subscriptions.
      if (!keepable(run, now)) return undefined;
      const page = keptPageQuery(run, query, 'postgres', now);
      const rows = await database.preparedRows(preparedName('kept-run-page', page.texts.join('?')), page);
      if (rows.length > 0) return rows.map(toKeptDelivery);
      // No row: the run kept has none past the cursor, or it is not kept.
      const claim = await claimOf(undefined, run.date);
      if (claim?.state === KEPT) return [];
      if (!held(claim, now)) builds.start(() => build(run));
      return undefined;
    },
    stop: () => builds.stop(),
  };
}
