/**
 * `circulation backup DEST`: an online copy of the SQLite database to DEST, while the service
 * serves and writes (src/backups/copy.ts says what it guarantees).
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { BackupRefused, POSTGRES_BACKUPS, writeBackup, type Written } from '../backups/copy.js';
import { copySqliteFile } from '../store/open.js';
import { CommandError, UsageError, type Command } from './command.js';
import { announce } from './database.js';

export const backupCommand: Command = {
  summary: 'copy the SQLite database to a file, online (circulation backup --help)',
  usage: `Usage: circulation backup DEST
  Copies the SQLite database (DATABASE_URL) to the file DEST while the service serves and writes:
  every write answered before the backup began is in it. The copy is written beside DEST under a
  temporary name, checked (PRAGMA integrity_check), and only then renamed to DEST, replacing a file
  there: a failed or killed backup leaves DEST as it was. DEST is readable by its owner only.
  On PostgreSQL use pg_dump -Fc or base backups with WAL archiving instead
  (see docs/operating/backups.md).
`,
  async run(config, args) {
    const [destination, ...rest] = args;
    if (!destination || rest.length > 0 || destination.startsWith('-')) throw new UsageError('backup takes one DEST');
    const { database } = config;
    if (database.kind === 'postgres') throw new CommandError(`circulation backup ${POSTGRES_BACKUPS}`);
    if (database.path === ':memory:')
      throw new CommandError('the database is in memory (DATABASE_URL): there is no file to copy');
    if (!existsSync(database.path)) throw new CommandError(`there is no database at ${database.path} (DATABASE_URL)`);
    announce(database);
    const taken = databaseFileAt(destination, database.path);
    if (taken !== undefined) {
      throw new CommandError(
        `${destination} is ${taken === '' ? 'the database itself' : `the database's ${taken} file`} (DATABASE_URL): give another file`,
      );
    }
    const written = await refusedAsCommandError(() =>
      writeBackup(destination, (draft) => copySqliteFile(database.path, draft, database.busyTimeoutMs)),
    );
    process.stdout.write(`${reportOf('backed up the database to', written)}\n`);
  },
};

const BESIDE = ['', '-wal', '-shm', '-journal'] as const;

/**
 * Which of the database's files `destination` is (`''` the database itself, or the suffix of a
 * file SQLite keeps beside it), which a rename onto it would destroy; undefined for another
 * file. Paths are compared as the file system resolves them (the real path of each folder, and of
 * the database when it is a link), so a symlinked folder or `..` does not hide the database.
 */
function databaseFileAt(destination: string, database: string): (typeof BESIDE)[number] | undefined {
  const target = realLocation(destination);
  const databases = new Set([realLocation(database), realpathSync(database)]);
  const suffix = BESIDE.find((end) => [...databases].some((path) => target === `${path}${end}`));
  if (suffix !== undefined) return suffix;
  const a = statSync(destination, { throwIfNoEntry: false });
  const b = statSync(database);
  return a !== undefined && a.ino === b.ino && a.dev === b.dev ? '' : undefined;
}

/** The absolute path of `path` with its folder's symlinks resolved (the file itself may not exist yet). */
function realLocation(path: string): string {
  const absolute = resolve(path);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}

/** `VERB PATH (SIZE, schema version N) in S s`: one line. */
export function reportOf(verb: string, written: Written): string {
  const near = relative(process.cwd(), written.path);
  const path = near.startsWith('..') || near === '' ? written.path : near;
  return `${verb} ${path} (${megabytes(written.bytes)}, schema version ${written.schemaVersion}) in ${(written.ms / 1000).toFixed(1)} s`;
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export async function refusedAsCommandError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BackupRefused) throw new CommandError(error.message);
    throw error;
  }
}
