/**
 * A SQLite database as a whole file: copied online while others read and write it, checked
 * (intact, and a circulation database), and held alone so that it can be replaced. What to do
 * with the copies (where they go, when one replaces another) is src/backups/.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CopyOptions } from '../port.js';
import { sqliteMigrations } from './migrations.js';

/** Pages a step copies when the caller does not say: all of them, in one step. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the database `db` has open into the file at `path` (made beforehand, empty, with the
 * mode it is to keep), with SQLite's online backup: the copy is the database as it was at some
 * instant at or after the call, every transaction committed by then in it whole. A write from
 * another connection between two steps makes SQLite start again from the first page, so each
 * start again doubles the step: a copy among busy writers ends, at worst in one step (a read
 * transaction, which in WAL mode holds up no writer).
 */
export async function copyDatabase(db: Database.Database, path: string, options: CopyOptions = {}): Promise<void> {
  let step = options.pagesPerStep ?? ALL_PAGES;
  let left = Number.POSITIVE_INFINITY;
  await db.backup(path, {
    progress({ totalPages, remainingPages }) {
      // Thrown here, the driver ends the backup and rejects with it.
      options.signal?.throwIfAborted();
      if (remainingPages >= left) step = Math.min(step * 2, Math.max(totalPages, 1));
      left = remainingPages;
      return step;
    },
  });
}

/**
 * Copies the database file at `source` into `path` (see copyDatabase), over a connection of its
 * own that only reads (and so migrates nothing: a newer release's command must not change the schema
 * under an older serving process).
 */
export async function copySqliteFile(source: string, path: string, busyTimeoutMs: number): Promise<void> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    await copyDatabase(db, path);
  } finally {
    db.close();
  }
}

/** What a copy that passed its checks holds. */
export interface CheckedCopy {
  /** The schema version of the copy, from its migrations table. */
  schemaVersion: number;
}

/** A file that is not a sound circulation database; the message says what is wrong with it. */
export class UnsoundCopy extends Error {
  override name = 'UnsoundCopy';
}

/**
 * Checks a copy this process has just made, before it is put anywhere: a circulation database
 * (its migrations table, at a version this release knows) that `PRAGMA integrity_check` finds
 * intact. The copy is also turned to a rollback journal, so that it is one file, which opens
 * without a write-ahead log beside it (a serving process turns it back to WAL when it opens it).
 * The integrity check reads every page, seconds for a large database, so it runs on a thread of
 * its own, leaving a serving process's event loop to its requests.
 */
export async function checkSqliteCopy(path: string): Promise<CheckedCopy> {
  let schemaVersion: number;
  const db = openCopy(path);
  try {
    db.pragma('journal_mode = DELETE');
    schemaVersion = schemaVersionOf(db);
  } catch (error) {
    if (error instanceof UnsoundCopy) throw error;
    throw new UnsoundCopy(`it cannot be read: ${(error as Error).message}`, { cause: error });
  } finally {
    db.close();
  }
  const problems = await integrityProblems(path);
  if (problems.length > 0) {
    throw new UnsoundCopy(`it fails SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`);
  }
  return { schemaVersion };
}

function openCopy(path: string): Database.Database {
  try {
    const db = new Database(path, { fileMustExist: true });
    db.pragma('schema_version');
    return db;
  } catch (error) {
    throw new UnsoundCopy(`it is not a SQLite database (${(error as Error).message})`, { cause: error });
  }
}

function schemaVersionOf(db: Database.Database): number {
  const latest = sqliteMigrations.at(-1)?.version ?? 0;
  const tables = new Set(
    (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name),
  );
  if (!tables.has('schema_migrations') || !tables.has('users') || !tables.has('subscriptions')) {
    throw new UnsoundCopy(
      'it is not a circulation database: it has no schema_migrations, users or subscriptions table',
    );
  }
  const { version } = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as {
    version: number | null;
  };
  if (version === null || version < 1)
    throw new UnsoundCopy('it is not a circulation database: no migration is recorded');
  if (version > latest) {
    throw new UnsoundCopy(`its schema is version ${version}, newer than this release knows (${latest})`);
  }
  return version;
}

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * Runs in a worker as a script (a module file would have to be found beside this one in the
 * build and under tsx alike), reading the file with the driver this process uses.
 */
const INTEGRITY_CHECK = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const Database = require(workerData.driver);
  const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('integrity_check(20)');
    parentPort.postMessage({ problems: rows.map((row) => row.integrity_check).filter((line) => line !== 'ok') });
  } finally {
    db.close();
  }
} catch (error) {
  parentPort.postMessage({ error: String(error && error.message || error) });
}`;

/** What `PRAGMA integrity_check` finds wrong with the file at `path` (nothing: an empty list). */
function integrityProblems(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(INTEGRITY_CHECK, { eval: true, workerData: { driver: DRIVER, path } });
    worker.once('message', (answer: { problems?: string[]; error?: string }) => {
      if (answer.error !== undefined) reject(new UnsoundCopy(`it cannot be read: ${answer.error}`));
      else resolve(answer.problems ?? []);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the integrity check ended without an answer (exit ${code})`)));
  });
}

/** Another process has the database open: it cannot be replaced now. */
export class DatabaseInUse extends Error {
  override name = 'DatabaseInUse';
}

/** A database file held by this process alone, until `release`. */
export interface HeldAlone {
  release(): void;
}

/**
 * Takes the database file at `path` for this process alone, or throws `DatabaseInUse` at once.
 * In WAL mode a connection that is open but idle holds no lock on the file itself, only its share
 * of the `-shm` index: what such a connection prevents (tested) is leaving WAL mode. So this first
 * turns the file to a rollback journal (which a connection open anywhere else refuses, and which
 * copies the write-ahead log into the file and removes it), then takes the file's exclusive lock
 * and keeps it, so that a process starting meanwhile waits rather than reads it. Nothing is held
 * when there is no file at `path` (undefined).
 */
export function takeSqliteFileAlone(path: string): HeldAlone | undefined {
  if (!existsSync(path)) return undefined;
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = DELETE');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (/^SQLITE_(BUSY|LOCKED)/.test((error as { code?: string }).code ?? '')) {
      throw new DatabaseInUse(`another process has the database at ${path} open`, { cause: error });
    }
    throw error;
  }
  return {
    release() {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
