/**
 * The users' JSON text kept on their rows (sql/user-json.ts) on PostgreSQL: a trigger writes it
 * into every row inserted or updated, before it is stored, so that no write, whichever statement
 * makes it, leaves a page reading text the row no longer says. The trigger's function is made from
 * this release's SQL when the database is migrated; when the database's differs (a new database, a
 * release that renders a user otherwise), it is made anew and every row written again.
 *
 * On Citus the trigger fires on the shards: it reads the new row alone, so none of what makes
 * Citus call triggers on distributed tables unsafe (a trigger reading or writing other shards)
 * applies, and it is allowed for the transaction that makes it.
 */
import type pg from 'pg';
import { USER_JSON } from '../sql/user-json.js';

const FUNCTION = 'users_json_text';
const TRIGGER = 'users_json_text';

/** The function's body: the kept stretches written from the new row, which the SQL reads as `users`. */
function body(): string {
  const { kept } = USER_JSON.postgres;
  const values = kept.map((stretch) => stretch.sql.render('postgres').text).join(',\n    ');
  const into = kept.map((stretch) => `NEW.${stretch.column}`).join(', ');
  return `
BEGIN
  SELECT ${values}
  INTO ${into} FROM (SELECT NEW.*) AS users;
  RETURN NEW;
END`;
}

/** Makes the trigger of this release, unless the database has it; answers whether it did. Run under the migration lock. */
export async function keepUsersJsonText(client: pg.ClientBase): Promise<boolean> {
  const source = body();
  const { rows } = await client.query<{ same: boolean }>(
    `SELECT p.prosrc = $1 AS same FROM pg_proc p JOIN pg_trigger t ON t.tgfoid = p.oid
      WHERE p.proname = $2 AND t.tgname = $3 AND t.tgrelid = 'users'::regclass`,
    [source, FUNCTION, TRIGGER],
  );
  if (rows[0]?.same) return false;
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL citus.enable_unsafe_triggers TO on');
    await client.query(
      `CREATE OR REPLACE FUNCTION ${FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $body$${source}$body$`,
    );
    await client.query(`DROP TRIGGER IF EXISTS ${TRIGGER} ON users`);
    await client.query(
      `CREATE TRIGGER ${TRIGGER} BEFORE INSERT OR UPDATE ON users FOR EACH ROW EXECUTE FUNCTION ${FUNCTION}()`,
    );
    // Any update writes the text again.
    await client.query(`UPDATE users SET ${USER_JSON.postgres.kept[0]!.column} = NULL`);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
