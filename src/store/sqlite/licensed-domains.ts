/**
 * The email domains some site licence names, kept in the process's memory (one set per database
 * opened), so that the access check reads the licences of a reader's domain only when it or a
 * parent's wildcard is among them: most readers' domains are licensed to nobody. Trusted while
 * nothing has changed the database since it was read: SQLite's data version moves whenever another
 * connection (another process, the command line) commits, and this connection's own writes of a
 * licence's domains forget it (site-licences.ts). A licence ended, deleted or erased may leave its
 * domains here until then, which costs a read that finds nothing.
 */
import { LICENSED_DOMAINS } from '../sql/site-licences.js';
import type { SqliteDatabase } from './database.js';

export interface SqliteLicensedDomains {
  /** Every domain some licence names (perhaps a few more). */
  current(): ReadonlySet<string>;
  /** Forgets them, when this connection writes a licence's domains. */
  added(): void;
}

const byDatabase = new WeakMap<SqliteDatabase, SqliteLicensedDomains>();

export function sqliteLicensedDomains(database: SqliteDatabase): SqliteLicensedDomains {
  let domains = byDatabase.get(database);
  if (!domains) {
    domains = keep(database);
    byDatabase.set(database, domains);
  }
  return domains;
}

function keep(database: SqliteDatabase): SqliteLicensedDomains {
  const dataVersion = database.db.prepare('PRAGMA data_version').pluck();
  const select = database.db.prepare(LICENSED_DOMAINS).pluck();
  let kept: ReadonlySet<string> | undefined;
  let keptAt: unknown;
  return {
    current() {
      const version = dataVersion.get();
      if (kept === undefined || version !== keptAt) {
        kept = new Set(select.all() as string[]);
        keptAt = version;
      }
      return kept;
    },
    added() {
      kept = undefined;
    },
  };
}
