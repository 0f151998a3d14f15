/**
 * The print runs of the next dates kept on SQLite (sql/kept-runs.ts).
 *
 * Triggers keep a kept run's rows right whichever statement, process or command writes: after
 * every write of a subscription, hold, temporary address or complaint, and of a reader's address,
 * the reader's kept deliveries are written again from what the database now holds; a product
 * changing its delivery days or what it gives (which reaches every subscription of it) drops
 * every kept run instead, to be built again when next asked for. The triggers are made from this
 * release's SQL when a database is opened, and when theirs differ they are made anew and the
 * kept runs dropped, as they may have been kept otherwise.
 *
 * A run is built when a page of it is asked for while it is one to keep: in the background, a
 * range of subscription ids a write, so that the event loop is free between them; pages read the
 * subscriptions meanwhile. A builder claims the run first (of processes sharing the file, one
 * builds it), clears what an earlier run of the date left, and only then lets the triggers keep
 * it, so that clearing never removes what a trigger wrote.
 */
import type Database from 'better-sqlite3';
import type { RunDate } from '../../domain/delivery.js';
import { nowInSeconds } from '../../domain/dates.js';
import type { RenderedDelivery, RunPageQuery } from '../ports/deliveries.js';
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
import { ADDRESS_COLUMNS } from '../sql/temporary-addresses.js';
import { raw, sql } from '../sql/builder.js';
import type { SqliteDatabase } from './database.js';

/** The tables whose rows name a reader whose deliveries a write of them may change. */
const READERS_RECORDS = ['subscriptions', 'holds', 'temporary_addresses', 'delivery_complaints'];

const WHEN_KEPT = `WHEN EXISTS (SELECT 1 FROM kept_runs WHERE ${keptByTriggers('sqlite')})`;

/** Writes the kept deliveries of the readers `users` names again (SQL of their ids, in a trigger's body). */
function rewrite(users: string): string {
  const { text, values } = keptDeliveriesOfReaders('sqlite', users).render('sqlite');
  if (values.length > 0) throw new Error('a trigger of the kept runs would need a parameter');
  return `DELETE FROM kept_deliveries WHERE user_id IN (${users});
    INSERT OR REPLACE INTO kept_deliveries (${KEPT_COLUMNS}) ${text};`;
}

/** The triggers' statements, by name. */
function triggers(): Map<string, string> {
  const made = new Map<string, string>();
  for (const table of READERS_RECORDS) {
    const on = (event: string, users: string) =>
      made.set(
        `${table}_kept_runs_${event.toLowerCase()}`,
        `CREATE TRIGGER ${table}_kept_runs_${event.toLowerCase()} AFTER ${event} ON ${table} ${WHEN_KEPT}
  BEGIN ${rewrite(users)} END`,
      );
    on('INSERT', 'NEW.user_id');
    on('UPDATE', 'OLD.user_id, NEW.user_id');
    on('DELETE', 'OLD.user_id');
  }
  made.set(
    'users_kept_runs_update',
    `CREATE TRIGGER users_kept_runs_update AFTER UPDATE OF ${ADDRESS_COLUMNS.join(', ')} ON users ${WHEN_KEPT}
  BEGIN ${rewrite('NEW.id')} END`,
  );
  made.set(
    'products_kept_runs_update',
    `CREATE TRIGGER products_kept_runs_update AFTER UPDATE OF delivery_days, resource ON products
  BEGIN DELETE FROM kept_runs; END`,
  );
  return made;
}

/** True when the database's kept runs' triggers are these. */
function current(db: Database.Database, statements: Map<string, string>): boolean {
  const read = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_kept_runs_%'");
  const made = read.all() as { name: string; sql: string }[];
  return made.length === statements.size && made.every((t) => statements.get(t.name) === t.sql);
}

/** Makes the triggers of this release, unless the database has them; answers whether it did. */
export function keepRunsByTriggers(db: Database.Database): boolean {
  const statements = triggers();
  if (current(db, statements)) return false;
  // Immediate: of processes opening the file at once, one makes them and the others find them made.
  return db
    .transaction(() => {
      if (current(db, statements)) return false;
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_kept_runs_%'");
      for (const name of names.pluck().all() as string[]) db.exec(`DROP TRIGGER ${name}`);
      for (const statement of statements.values()) db.exec(statement);
      // Kept by other triggers: built again when asked for, their rows cleared then.
      db.exec('DELETE FROM kept_runs');
      return true;
    })
    .immediate();
}

export interface SqliteKeptRuns {
  /** A page of the run if it is kept and may answer; else nothing, and its build begun if it is one to keep. */
  page(run: RunDate, query: RunPageQuery): RenderedDelivery[] | undefined;
  /** Stops a build under way at its next step. */
  stop(): void;
}

export function sqliteKeptRuns(database: SqliteDatabase): SqliteKeptRuns {
  const { db } = database;
  const claimOf = db.prepare('SELECT state, claimed_at FROM kept_runs WHERE date = ?');
  const dropBegun = db.prepare('DELETE FROM kept_runs WHERE starts_at <= ?');
  const claim = db.prepare(`INSERT OR REPLACE INTO kept_runs
    (date, date_text, starts_at, ends_at, weekday_bit, state, claimed_at) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const nextDate = db.prepare('SELECT min(date) FROM kept_deliveries WHERE date > ?').pluck();
  const keptState = db.prepare(`SELECT state FROM kept_runs WHERE date = ? AND state > ${CLEARING}`).pluck();
  const clearStep = db.prepare(`DELETE FROM kept_deliveries WHERE date = @date AND subscription_id IN
    (SELECT subscription_id FROM kept_deliveries WHERE date = @date LIMIT ${BUILD_STEP})`);
  const advance = db.prepare(
    'UPDATE kept_runs SET state = ?, claimed_at = ? WHERE date = ? AND state = ? AND claimed_at = ?',
  );
  const lastSubscription = db.prepare('SELECT coalesce(max(id), 0) FROM subscriptions').pluck();
  let underWay: Promise<void> | undefined;
  let stopped = false;

  /** Whether a builder holds the run at `now` (or it is kept). */
  const held = (claimed: Claim | undefined, now: number) =>
    claimed !== undefined && (claimed.state === KEPT || now - claimed.claimed_at < BUILD_CLAIM_SECONDS);

  /** Waits for the step just written to commit; answers whether to go on. */
  async function committed(): Promise<boolean> {
    await database.group.settled();
    await new Promise((resolve) => setImmediate(resolve));
    return !stopped;
  }

  /** Claims the run at `now` unless another builder holds it or it is kept; answers whether it did. */
  function claimed(run: RunDate, now: number): boolean {
    return db.transaction(() => {
      if (held(claimOf.get(run.date) as Claim | undefined, now)) return false;
      dropBegun.run(now);
      claim.run(...claimValues(run, 'sqlite', now));
      return true;
    })();
  }

  /** Deletes, a step at a time, the rows of every date no run being built or kept has. */
  async function clear(): Promise<boolean> {
    for (let date = nextDate.get(-1) as number | null; date !== null; date = nextDate.get(date) as number | null) {
      while (keptState.get(date) === undefined && db.transaction(() => clearStep.run({ date }).changes)() > 0) {
        if (!(await committed())) return false;
      }
    }
    return true;
  }

  async function build(run: RunDate): Promise<void> {
    let claimedAt = nowInSeconds();
    if (!claimed(run, claimedAt)) return;
    if (!(await committed()) || !(await clear())) return;
    /** Moves the claim on, into `state`; answers whether it was still this builder's. */
    const moved = (from: number, state: number) => {
      const at = nowInSeconds();
      const changed = db.transaction(() => advance.run(state, at, run.date, from, claimedAt).changes)() > 0;
      claimedAt = at;
      return changed;
    };
    if (!moved(CLEARING, BUILDING)) return;
    const last = Number(lastSubscription.get());
    for (let after = 0; after < last; after += BUILD_STEP) {
      const step = keptDeliveriesOfStep('sqlite', run.date, after, after + BUILD_STEP);
      db.transaction(() =>
        database.changes(sql`INSERT OR REPLACE INTO kept_deliveries (${raw(KEPT_COLUMNS)}) ${step}`),
      )();
      if (!moved(BUILDING, BUILDING) || !(await committed())) return;
    }
    moved(BUILDING, KEPT);
  }

  return {
    page(run, query) {
      const now = nowInSeconds();
      const claimed = claimOf.get(run.date) as Claim | undefined;
      if (answers(claimed?.state, run, now)) return database.all(keptPageQuery(run, query)).map(toKeptDelivery);
      if (keepable(run, now) && !held(claimed, now) && underWay === undefined && !stopped) {
        underWay = build(run)
          // A build that fails leaves its claim to lapse; pages read the subscriptions meanwhile.
          .catch(() => undefined)
          .finally(() => {
            underWay = undefined;
          });
      }
      return undefined;
    },
    stop() {
      stopped = true;
    },
  };
}

/** A run's row, as a builder reads it. */
interface Claim {
  state: number;
  claimed_at: number;
}
