/**
 * Numbered schema migrations, shared by the adapters. A released migration never changes; a
 * change to the schema is a new entry at the end. A release refuses a database whose schema is
 * newer than it knows, rather than write to tables it does not understand.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * A migration whose new columns hold what only TypeScript computes (the search keys of
 * domain/search.ts): `fill` runs after its SQL, in the same transaction, with the adapter's connection.
 */
export interface FillingMigration<Connection, Done> extends Migration {
  fill?: (connection: Connection) => Done;
}

/** The migrations a database at `current` still needs; throws when it is ahead of this release. */
export function pendingMigrations<M extends Migration>(current: number, migrations: readonly M[]): readonly M[] {
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`the database schema is version ${current}, newer than this release knows (${latest})`);
  }
  return migrations.filter((m) => m.version > current);
}
