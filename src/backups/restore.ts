/**
 * Restoring a backup: the database file is replaced whole by a checked copy of the backup, and
 * only while no other process has it open. The order leaves the old database untouched until the
 * rename: first the backup is copied beside it and checked (a circulation database of a schema
 * this release knows, intact), then the live file is taken alone (or the restore refused), then
 * its write-ahead log and index files, which belong to the old file and would corrupt the new
 * one, are removed, and the copy renamed into place (mode 0600, as the service makes it).
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  checkSqliteCopy,
  copySqliteFile,
  DatabaseInUse,
  takeSqliteFileAlone,
  UnsoundCopy,
  type HeldAlone,
} from '../store/open.js';
import {
  BackupRefused,
  createDraft,
  removeDraft,
  removeLeftovers,
  statOrUndefined,
  syncFolder,
  type Written,
} from './copy.js';

/** Puts the backup at `source` in place of the database file at `database`. */
export async function restoreBackup(source: string, database: string, busyTimeoutMs: number): Promise<Written> {
  const started = performance.now();
  const from = resolve(source);
  const sourceStats = statOrUndefined(from);
  if (!sourceStats) throw new BackupRefused(`there is no file at ${from}`);
  if (!sourceStats.isFile()) throw new BackupRefused(`${from} is not a file`);
  const liveStats = statOrUndefined(database);
  if (liveStats && liveStats.ino === sourceStats.ino && liveStats.dev === sourceStats.dev) {
    throw new BackupRefused(`${from} is the database itself (DATABASE_URL)`);
  }
  const folder = dirname(database);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  removeLeftovers(folder, (of) => of === 'restore');
  const draft = createDraft(join(folder, 'restore'));
  try {
    try {
      await copySqliteFile(from, draft, busyTimeoutMs);
    } catch (error) {
      throw new BackupRefused(
        `${from} cannot be read as a SQLite database (${(error as Error).message}); nothing was changed`,
        { cause: error },
      );
    }
    const { schemaVersion } = await checkedCopy(draft, from);
    const held = heldAlone(database);
    try {
      for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${database}${suffix}`, { force: true });
      renameSync(draft, database);
      syncFolder(folder);
    } finally {
      held?.release();
    }
    return {
      path: database,
      bytes: statOrUndefined(database)?.size ?? 0,
      ms: performance.now() - started,
      schemaVersion,
    };
  } catch (error) {
    removeDraft(draft);
    throw error;
  }
}

/** The database taken for this process alone (see takeSqliteFileAlone), or the restore refused. */
function heldAlone(database: string): HeldAlone | undefined {
  try {
    return takeSqliteFileAlone(database);
  } catch (error) {
    if (error instanceof DatabaseInUse) {
      throw new BackupRefused(
        `another process has the database at ${database} open (a serving process?): stop every process ` +
          'that uses it, then restore; nothing was changed',
      );
    }
    throw new BackupRefused(
      `the database at ${database} cannot be opened to make sure no process uses it (${(error as Error).message}); ` +
        'if it is broken, move it aside (with any -wal and -shm file beside it), then restore',
      { cause: error },
    );
  }
}

async function checkedCopy(draft: string, from: string) {
  try {
    return await checkSqliteCopy(draft);
  } catch (error) {
    if (error instanceof UnsoundCopy)
      throw new BackupRefused(`${from} cannot be restored: ${error.message}; nothing was changed`);
    throw error;
  }
}
