/**
 * `circulation restore SRC`: puts a backup in place of the SQLite database, with no process using
 * it (src/backups/restore.ts says how).
 */
import { restoreBackup } from '../backups/restore.js';
import { CommandError, UsageError, type Command } from './command.js';
import { refusedAsCommandError, reportOf } from './backup.js';
import { announce } from './database.js';

export const restoreCommand: Command = {
  summary: 'replace the SQLite database with a backup, the service stopped (circulation restore --help)',
  usage: `Usage: circulation restore SRC
  Replaces the SQLite database (DATABASE_URL) with the backup SRC. Refused while any process has the
  database open: stop the service first. SRC is copied beside the database and checked first (a
  circulation database of a schema this release knows, passing PRAGMA integrity_check); a refused
  restore changes nothing. What the database held before is gone: back it up first if you may want it.
  On PostgreSQL use pg_restore (see docs/operating/backups.md).
`,
  async run(config, args) {
    const [source, ...rest] = args;
    if (!source || rest.length > 0 || source.startsWith('-')) throw new UsageError('restore takes one SRC');
    const { database } = config;
    if (database.kind === 'postgres') {
      throw new CommandError(
        'circulation restore puts back a SQLite backup; on PostgreSQL use pg_restore (see docs/operating/backups.md)',
      );
    }
    if (database.path === ':memory:')
      throw new CommandError('the database is in memory (DATABASE_URL): there is no file to replace');
    announce(database);
    const written = await refusedAsCommandError(() => restoreBackup(source, database.path, database.busyTimeoutMs));
    process.stdout.write(`${reportOf(`restored ${source} to`, written)}\n`);
  },
};
