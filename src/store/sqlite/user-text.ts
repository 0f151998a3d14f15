/**
 * The users' JSON text kept on their rows (sql/user-json.ts) on SQLite: triggers write it after
 * every insert and every update of a column it may read, so that no write, whichever statement
 * makes it, leaves a page reading text the row no longer says. The triggers are made from this
 * release's SQL when a database is opened; when theirs differ (a new database, a release that
 * renders a user otherwise, a column added since), they are made anew and every row written again.
 */
import type Database from 'better-sqlite3';
import { USER_JSON } from '../sql/user-json.js';

const INSERTED = 'users_json_text_inserted';
const UPDATED = 'users_json_text_updated';

/** The triggers' statements, by name, for the columns `users` has. */
function triggers(columns: readonly string[]): { statements: Map<string, string>; rewrite: string } {
  const { kept } = USER_JSON.sqlite;
  const keeping = new Set(kept.map((stretch) => stretch.column));
  const missing = [...keeping].filter((column) => !columns.includes(column));
  if (missing.length > 0) {
    throw new Error(`users has no column ${missing.join(', ')} to keep its JSON text in: add it in a migration`);
  }
  const sets = kept.map((stretch) => `${stretch.column} = ${stretch.sql.render('sqlite').text}`).join(', ');
  // Every other column, as a column added later may be one the text reads.
  const watched = columns.filter((column) => !keeping.has(column)).join(', ');
  const write = `UPDATE users SET ${sets} WHERE id = NEW.id;`;
  return {
    statements: new Map([
      [INSERTED, `CREATE TRIGGER ${INSERTED} AFTER INSERT ON users BEGIN ${write} END`],
      [UPDATED, `CREATE TRIGGER ${UPDATED} AFTER UPDATE OF ${watched} ON users BEGIN ${write} END`],
    ]),
    rewrite: `UPDATE users SET ${sets}`,
  };
}

/** True when the database's triggers are these. */
function current(db: Database.Database, statements: Map<string, string>): boolean {
  const read = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'users'");
  const made = read.all() as { name: string; sql: string }[];
  return [...statements].every(([name, statement]) => made.some((t) => t.name === name && t.sql === statement));
}

/** Makes the triggers of this release, unless the database has them; answers whether it did. */
export function keepUsersJsonText(db: Database.Database): boolean {
  const columns = () => db.prepare("SELECT name FROM pragma_table_info('users')").pluck().all() as string[];
  if (current(db, triggers(columns()).statements)) return false;
  // Immediate: of processes opening the file at once, one makes them and the others find them made.
  return db
    .transaction(() => {
      const { statements, rewrite } = triggers(columns());
      if (current(db, statements)) return false;
      for (const name of statements.keys()) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
      for (const statement of statements.values()) db.exec(statement);
      db.exec(rewrite);
      return true;
    })
    .immediate();
}
