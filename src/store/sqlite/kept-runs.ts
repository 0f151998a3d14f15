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
import { raw, sql, type Sql } from '../sql/builder.js';
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
import type { Row } from '../sql/rows.js';
import type { SqliteDatabase } from './database.js';

const WHEN_KEPT = `WHEN EXISTS (SELECT 1 FROM kept_runs WHERE ${keptByTriggers('sqlite')})`;

/** Writes the kept deliveries of the readers `users` names again (SQL of their ids, in a trigger's body). */
function rewrite(users: string): string {
  return `DELETE FROM kept_deliveries WHERE user_id IN (${users});
    INSERT OR REPLACE INTO kept_deliveries (${KEPT_COLUMNS}) ${keptDeliveriesOfReaders('sqlite', users)};`;
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
    `CREATE TRIGGER products_kept_runs_update AFTER UPDATE OF ${PRODUCT_COLUMNS} ON products
  BEGIN DELETE FROM kept_runs; END`,
  );
  return made;
}

/** The kept runs' triggers the database has, by name. */
function madeTriggers(db: Database.Database): Map<string, string> {
  const read = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_kept_runs_%'");
  return new Map((read.all() as { name: string; sql: string }[]).map((t) => [t.name, t.sql]));
}

/** True when the database's kept runs' triggers are these. */
function current(db: Database.Database, statements: Map<string, string>): boolean {
  const made = madeTriggers(db);
  return made.size === statements.size && [...made].every(([name, statement]) => statements.get(name) === statement);
}

/** Makes the triggers of this release, unless the database has them; answers whether it did. */
export function keepRunsByTriggers(db: Database.Database): boolean {
  const statements = triggers();
  if (current(db, statements)) return false;
  // Immediate: of processes opening the file at once, one makes them and the others find them made.
  return db
    .transaction(() => {
      if (current(db, statements)) return false;
      for (const name of madeTriggers(db).keys()) db.exec(`DROP TRIGGER ${name}`);
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
  /** Stops a build under way at its next step, and answers once it has. */
  stop(): Promise<void>;
}

export function sqliteKeptRuns(database: SqliteDatabase): SqliteKeptRuns {
  const { db } = database;
  const builds = new Builds();
  /** Runs `query`, which writes, in a write of its own; answers how many rows it changed. */
  const write = (query: Sql) => db.transaction(() => database.changes(query))();
  /** The first row `query` reads, if any. */
  const first = (query: Sql) => {
    const { statement, values } = database.statement(query);
    return statement.get(...values) as Row | undefined;
  };

  /** Waits for the step just written to commit; answers whether to go on. */
  async function committed(): Promise<boolean> {
    await database.group.settled();
    await new Promise((resolve) => setImmediate(resolve));
    return !builds.stopped;
  }

  /** Claims the run at `now` unless another builder holds it or it is kept; answers whether it did. */
  function claimed(run: RunDate, now: number): boolean {
    return db.transaction(() => {
      if (held(toClaim(first(claimOfQuery(run.date))), now)) return false;
      database.changes(dropBegunQuery('sqlite', now));
      database.changes(claimQuery(run, 'sqlite', now));
      return true;
    })();
  }

  /** Deletes, a step at a time, the rows of every date no run being built or kept has. */
  async function clear(): Promise<boolean> {
    const next = (after: number) => first(nextKeptDateQuery(after))?.date as number | null;
    for (let date = next(-1); date !== null; date = next(date)) {
      if (first(keptOrBuildingQuery(date)) !== undefined) continue;
      while (write(clearStepQuery(date)) > 0) if (!(await committed())) return false;
    }
    return true;
  }

  async function build(run: RunDate): Promise<void> {
    let claimedAt = nowInSeconds();
    if (!claimed(run, claimedAt)) return;
    if (!(await committed()) || !(await clear())) return;
    /** Moves the claim on, into `to`; answers whether it was still this builder's. */
    const moved = (from: number, to: number) => {
      const at = nowInSeconds();
      const changed = write(advanceQuery(run.date, 'sqlite', { from, to, claimedAt, at })) > 0;
      claimedAt = at;
      return changed;
    };
    if (!moved(CLEARING, BUILDING)) return;
    const last = Number(first(LAST_SUBSCRIPTION)?.last);
    for (let after = 0; after < last; after += BUILD_STEP) {
      const step = keptDeliveriesOfStep('sqlite', run.date, after, after + BUILD_STEP);
      write(sql`INSERT OR REPLACE INTO kept_deliveries (${raw(KEPT_COLUMNS)}) ${step}`);
      if (!moved(BUILDING, BUILDING) || !(await committed())) return;
    }
    moved(BUILDING, KEPT);
  }

  return {
    page(run, query) {
      const now = nowInSeconds();
      // A run kept is one to keep until it begins: any other is read from the subscriptions.
      if (!keepable(run, now)) return undefined;
      // The run's row first, read by its key: a page of a run not kept is one statement of the subscriptions.
      const claim = toClaim(first(claimOfQuery(run.date)));
      if (claim?.state === KEPT) return database.all(keptPageQuery(run, query, 'sqlite', now)).map(toKeptDelivery);
      if (!held(claim, now)) builds.start(() => build(run));
      return undefined;
    },
    stop: () => builds.stop(),
  };
}
