/**
 * Restoring a backup: the database file is replaced whole by a checked copy of the backup, and
 * only while no other process has it open. The order keeps the old database usable until the
 * rename: first the live file is taken alone (or the restore refused at once), then the backup is
 * copied beside it and checked (a circulation database of a schema this release knows, intact),
 * then the write-ahead log and index files, which belong to the old file and would corrupt the
 * new one, are removed, and the copy renamed into place (mode 0600, as the service makes it).
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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
  let held: HeldAlone | undefined;
  try {
    held = takeSqliteFileAlone(database);
  } catch (error) {
    if (error instanceof DatabaseInUse) {
      throw new BackupRefused(
        `another process has the database at ${database} open (a serving process?): stop every process ` +
          'that uses it, then restore',
      );
    }
    throw new BackupRefused(
      `the database at ${database} cannot be opened to make sure no process uses it (${(error as Error).message}); ` +
        'if it is broken, move it aside (with any -wal and -shm file beside it), then restore',
      { cause: error },
    );
  }
  try {
    removeLeftovers(folder, (of) => of === 'restore');
    const draft = createDraft(`${folder}/restore`);
    try {
      await copySqliteFile(from, draft, busyTimeoutMs);
      const { schemaVersion } = await checkedCopy(draft, from);
      for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${database}${suffix}`, { force: true });
      renameSync(draft, database);
      syncFolder(folder);
      return {
        path: database,
        bytes: statOrUndefined(database)?.size ?? 0,
        ms: performance.now() - started,
        schemaVersion,
      };
    } catch (error) {
      removeDraft(draft);
      if (error instanceof BackupRefused) throw error;
      throw new BackupRefused(
        `${from} cannot be read as a SQLite database (${(error as Error).message}); nothing was changed`,
        {
          cause: error,
        },
      );
    }
  } finally {
    held?.release();
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
