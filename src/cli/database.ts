/**
 * Which database a command works on, said first (on stderr, so that it never mixes with what a
 * command writes on stdout, such as an export): a mistyped DATABASE_URL, or a command run from
 * another folder, shows at once. Only `serve`, `migrate` and `seed` may create a database; any
 * other command refuses to, unless told `--create`, since an empty new one would quietly stand in
 * for the one meant.
 */
import type { Config } from '../config.js';
import { NoDatabase, openStore, type DatabaseConfig } from '../store/open.js';
import type { Store } from '../store/port.js';
import { CommandError } from './errors.js';

/** A PostgreSQL URL as it may be shown: its password, and any parameter naming one, as `***`. */
export function redactedUrl(text: string): string {
  const url = new URL(text);
  if (url.password !== '') url.password = '***';
  for (const key of [...url.searchParams.keys()]) {
    if (/pass/i.test(key)) url.searchParams.set(key, '***');
  }
  return url.href;
}

/** Where the database is, as it may be shown: its file, or its URL without a password. */
export function whereIs(database: DatabaseConfig): string {
  return database.kind === 'sqlite' ? database.path : redactedUrl(database.url);
}

/** `the SQLite database /srv/data/circulation.db`, `the PostgreSQL database postgres://app:***@db/circulation`. */
export function describeDatabase(database: DatabaseConfig): string {
  return `the ${database.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database ${whereIs(database)}`;
}

/**
 * Opens the configured database for a command, saying first which it is; `create` lets it lay out
 * a new one where there is none. A database that cannot be opened is a CommandError naming it.
 */
export async function openForCommand(config: Config, { create }: { create: boolean }): Promise<Store> {
  const { database } = config;
  const described = describeDatabase(database);
  let store: Store;
  try {
    store = await openStore(database, {
      strictReferences: config.strictReferences,
      pageReadLimit: config.pageReadLimit,
      create,
    });
  } catch (error) {
    if (error instanceof NoDatabase) {
      throw new CommandError(
        `there is no circulation database at ${whereIs(database)} (DATABASE_URL), and ` +
          `only serve, migrate and seed create one: check DATABASE_URL` +
          `${database.kind === 'sqlite' ? ' and the folder you run this from' : ''}, ` +
          'or create it with `circulation migrate` (or add --create)',
      );
    }
    throw new CommandError(`could not open ${described}: ${causeOf(error)}`);
  }
  announce(database);
  return store;
}

/** The first line of a command that works on the database: which one it is. */
export function announce(database: DatabaseConfig): void {
  process.stderr.write(`circulation: using ${describeDatabase(database)}\n`);
}

/** The driver's own words, under the wrapping openStore gives them (which may be none). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message !== '') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
