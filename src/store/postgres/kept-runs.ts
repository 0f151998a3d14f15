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
  BUILD_CLAIM_SECONDS,
  BUILD_STEP,
  BUILDING,
  CLEARING,
  KEPT,
  KEPT_COLUMNS,
  answers,
  claimValues,
  keepable,
  keptByTriggers,
  keptDeliveriesOfReaders,
  keptDeliveriesOfStep,
  keptPageQuery,
  toKeptDelivery,
} from '../sql/kept-runs.js';
import { instantValue, seconds } from '../sql/rows.js';
import { ADDRESS_COLUMNS } from '../sql/temporary-addresses.js';
import { isCitusCoordinator } from './citus.js';
import { preparedName, type PostgresDatabase } from './database.js';

const REWRITE = 'kept_runs_rewrite';
const DROP = 'kept_runs_drop';

/** The tables whose rows name a reader whose deliveries a write of them may change. */
const READERS_RECORDS = ['subscriptions', 'holds', 'temporary_addresses', 'delivery_complaints'];

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
  const { text, values } = keptDeliveriesOfReaders('postgres', 'SELECT unnest(readers)').render('postgres');
  if (values.length > 0) throw new Error('the trigger of the kept runs would need a parameter');
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
  INSERT INTO kept_deliveries (${KEPT_COLUMNS}) ${text}
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
    `CREATE TRIGGER products_kept_runs AFTER UPDATE OF delivery_days, resource ON products FOR EACH ROW EXECUTE FUNCTION ${DROP}()`,
  );
  return made;
}

/** The tables the triggers are on, by trigger name. */
const tableOf = (trigger: string) => trigger.slice(0, -'_kept_runs'.length);

/**
 * Makes the trigger of this release, unless the database has it (on Citus, drops any); answers
 * whether it changed anything. Run under the migration lock.
 */
export async function keepRunsByTrigger(client: pg.ClientBase): Promise<boolean> {
  const citus = await isCitusCoordinator(client);
  const rewrite = rewriteBody();
  const statements = triggers();
  const { rows } = await client.query<{ name: string; source: string | null }>(
    `SELECT t.tgname AS name, p.prosrc || coalesce(array_to_string(p.proconfig, ' '), '') AS source
     FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE t.tgname LIKE '%\\_kept\\_runs' AND t.tgrelid::regclass::text = ANY ($1::text[]) AND NOT t.tgisinternal`,
    [[...statements.keys()].map(tableOf)],
  );
  const current =
    !citus &&
    rows.length === statements.size &&
    rows.every(
      (row) =>
        statements.has(row.name) &&
        row.source === (row.name === 'products_kept_runs' ? DROP_BODY : `${rewrite}${GENERIC_PLANS}`),
    );
  if (current || (citus && rows.length === 0)) return false;
  await client.query('BEGIN');
  try {
    for (const name of statements.keys()) await client.query(`DROP TRIGGER IF EXISTS ${name} ON ${tableOf(name)}`);
    if (citus) {
      await client.query(`DROP FUNCTION IF EXISTS ${REWRITE}(), ${DROP}()`);
    } else {
      await client.query(
        `CREATE OR REPLACE FUNCTION ${REWRITE}() RETURNS trigger LANGUAGE plpgsql SET ${GENERIC_PLANS}
         AS $body$${rewrite}$body$`,
      );
      await client.query(
        `CREATE OR REPLACE FUNCTION ${DROP}() RETURNS trigger LANGUAGE plpgsql AS $body$${DROP_BODY}$body$`,
      );
      for (const statement of statements.values()) await client.query(statement);
    }
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

/** A run's row, as a builder reads it. */
interface Claim {
  state: number;
  claimed_at: Date;
}

export function postgresKeptRuns(database: PostgresDatabase): PostgresKeptRuns {
  let underWay: Promise<void> | undefined;
  let stopped = false;

  /** Whether a builder holds the run at `now` (or it is kept). */
  const held = (claimed: Claim | undefined, now: number) =>
    claimed !== undefined && (claimed.state === KEPT || now - seconds(claimed.claimed_at) < BUILD_CLAIM_SECONDS);

  const claimText = 'SELECT state, claimed_at FROM kept_runs WHERE date = $1';

  /** Claims the run at `now` unless another builder holds it or it is kept; answers whether it did. */
  async function claimed(run: RunDate, now: number): Promise<boolean> {
    return database.transaction(async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
      if (held((await client.query(claimText, [run.date])).rows[0] as Claim | undefined, now)) return false;
      await client.query('DELETE FROM kept_runs WHERE starts_at <= $1', [instantValue('postgres', now)]);
      await client.query(
        `INSERT INTO kept_runs (date, date_text, starts_at, ends_at, weekday_bit, state, claimed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (date) DO UPDATE SET state = EXCLUDED.state, claimed_at = EXCLUDED.claimed_at`,
        claimValues(run, 'postgres', now),
      );
      return true;
    });
  }

  /**
   * Deletes the rows of every date no run being built or kept has (left by a run dropped, or
   * begun), a step at a time, each within a request's statement timeout at any size.
   */
  async function clear(): Promise<boolean> {
    const next = async (after: number) =>
      (await database.rows('SELECT min(date) AS date FROM kept_deliveries WHERE date > $1', [after]))[0]?.date as
        number | null;
    for (let date = await next(-1); date !== null; date = await next(date)) {
      const kept = await database.rows(`SELECT 1 FROM kept_runs WHERE date = $1 AND state > ${CLEARING}`, [date]);
      if (kept.length > 0) continue;
      while (
        (await database.changes(
          `DELETE FROM kept_deliveries WHERE ctid IN
             (SELECT ctid FROM kept_deliveries WHERE date = $1 LIMIT ${BUILD_STEP})`,
          [date],
        )) > 0
      ) {
        if (stopped) return false;
      }
    }
    return true;
  }

  async function build(run: RunDate): Promise<void> {
    let claimedAt = nowInSeconds();
    if (!(await claimed(run, claimedAt))) return;
    if (!(await clear())) return;
    /** Moves the claim on, into `state`, in the transaction of `client`; answers whether it was still this builder's. */
    const moved = async (client: pg.ClientBase, from: number, state: number) => {
      const at = nowInSeconds();
      const { rowCount } = await client.query(
        'UPDATE kept_runs SET state = $1, claimed_at = $2 WHERE date = $3 AND state = $4 AND claimed_at = $5',
        [state, instantValue('postgres', at), run.date, from, instantValue('postgres', claimedAt)],
      );
      claimedAt = at;
      return (rowCount ?? 0) > 0;
    };
    if (stopped || !(await database.transaction((client) => moved(client, CLEARING, BUILDING)))) return;
    const [{ last } = { last: 0 }] = await database.rows('SELECT coalesce(max(id), 0) AS last FROM subscriptions');
    for (let after = 0; after < Number(last); after += BUILD_STEP) {
      const step = keptDeliveriesOfStep('postgres', run.date, after, after + BUILD_STEP);
      const going = await database.transaction(async (client) => {
        await client.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
        if (!(await moved(client, BUILDING, BUILDING))) return false;
        const { text, values } = sql`INSERT INTO kept_deliveries (${raw(KEPT_COLUMNS)}) ${step} ${raw(UPSERT)}`.render(
          'postgres',
        );
        await client.query(text, values);
        return true;
      });
      if (!going || stopped) return;
    }
    await database.transaction((client) => moved(client, BUILDING, KEPT));
  }

  return {
    async page(run, query) {
      const now = nowInSeconds();
      const page = keptPageQuery(run, query, { dialect: 'postgres', now });
      const rows = await database.preparedRows(preparedName('kept-run-page', page.texts.join('?')), page);
      if (rows.length > 0) return rows.map(toKeptDelivery);
      // No row: the run kept has none past the cursor, or it is not kept.
      const claimed = (await database.rows(claimText, [run.date]))[0] as Claim | undefined;
      if (answers(claimed?.state, run, now)) return [];
      if (keepable(run, now) && underWay === undefined && !stopped && !held(claimed, now)) {
        underWay = build(run)
          // A build that fails leaves its claim to lapse; pages read the subscriptions meanwhile.
          .catch(() => undefined)
          .finally(() => {
            underWay = undefined;
          });
      }
      return undefined;
    },
    async stop() {
      stopped = true;
      await underWay;
    },
  };
}
