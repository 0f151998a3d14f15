/**
 * The email domains some site licence names, kept in the process's memory (one set per database
 * opened), so that the access check reads the licences of a reader's domain only when it or a
 * parent's wildcard is among them: most readers' domains are licensed to nobody. Trusted while
 * nothing has changed the database since it was read: SQLite's data version moves whenever another
 * connection (another process, the command line) commits (seen within DATA_VERSION_MAX_AGE_MS,
 * database.ts), and this connection's own writes of a licence's domains forget it (site-licences.ts). A licence ended, deleted or erased may leave its
 * domains here until then, which costs a read that finds nothing. The readers holding a seat are
 * kept the same way (a seat taken back may leave its holder here, costing a read that finds nothing),
 * and so are the prefix lengths the ranges use (a range gone may leave its length, costing a probe).
 */
import { SEAT_HOLDERS } from '../sql/seats.js';
import { LICENSED_DOMAINS, RANGE_PREFIX_LENGTHS } from '../sql/site-licences.js';
import type { SqliteDatabase } from './database.js';

/** A set of values kept as the licensed domains are: trusted while the data version stands still. */
export interface SqliteKeptSet {
  /** Every value the query finds (perhaps a few more). */
  current(): ReadonlySet<string>;
  /** Forgets them, when this connection writes one. */
  added(): void;
}

const domainsByDatabase = new WeakMap<SqliteDatabase, SqliteKeptSet>();
const holdersByDatabase = new WeakMap<SqliteDatabase, SqliteKeptSet>();
const lengthsByDatabase = new WeakMap<SqliteDatabase, SqliteKeptSet>();

export function sqliteLicensedDomains(database: SqliteDatabase): SqliteKeptSet {
  return keptOnce(domainsByDatabase, database, LICENSED_DOMAINS);
}

/** The readers holding a seat, kept the same way: a reader not among them has no seat to read. */
export function sqliteSeatHolders(database: SqliteDatabase): SqliteKeptSet {
  return keptOnce(holdersByDatabase, database, SEAT_HOLDERS);
}

/** The prefix lengths some range uses, kept the same way: an address is probed at those alone. */
export function sqliteRangePrefixLengths(database: SqliteDatabase): SqliteKeptSet {
  return keptOnce(lengthsByDatabase, database, RANGE_PREFIX_LENGTHS);
}

function keptOnce(byDatabase: WeakMap<SqliteDatabase, SqliteKeptSet>, database: SqliteDatabase, query: string) {
  let set = byDatabase.get(database);
  if (!set) {
    set = keep(database, query);
    byDatabase.set(database, set);
  }
  return set;
}

function keep(database: SqliteDatabase, query: string): SqliteKeptSet {
  const select = database.db.prepare(query).pluck();
  let kept: ReadonlySet<string> | undefined;
  let keptAt: unknown;
  return {
    current() {
      const version = database.dataVersion();
      if (kept === undefined || version !== keptAt) {
        kept = new Set((select.all() as unknown[]).map(String));
        keptAt = version;
      }
      return kept;
    },
    added() {
      kept = undefined;
    },
  };
}
