/**
 * Writing a backup: the copy goes to a fresh file beside its destination (0600, created
 * exclusively, never through a link), is checked there, and only then renamed into place, so
 * that whatever stops the work (a failure, a full disk, kill -9) never leaves a torn file at the
 * destination, and a backup already there stays as it was until a sound one replaces it whole.
 * Drafts that a killed process left behind are removed by the next backup beside them.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { checkSqliteCopy, UnsoundCopy } from '../store/open.js';
import { StoreUnavailable } from '../store/availability.js';

/** What the commands and docs/operating/backups.md tell a PostgreSQL operator to use instead. */
export const POSTGRES_BACKUPS =
  'backs up the embedded SQLite database only; on PostgreSQL use its own tools: ' +
  '`pg_dump -Fc` (restored with `pg_restore`), or base backups with WAL archiving ' +
  '(`pg_basebackup`, for point-in-time recovery)';

/** A backup (or restore) that cannot be made as asked; the message says why, for the operator. */
export class BackupRefused extends Error {
  override name = 'BackupRefused';
}

export interface Written {
  /** The absolute path of the file written. */
  path: string;
  bytes: number;
  ms: number;
  /** The schema version the copy holds. */
  schemaVersion: number;
}

/**
 * Writes a backup to `destination` (replacing a file there) with `fill`, which copies the
 * database into the empty draft file it is given.
 */
export async function writeBackup(destination: string, fill: (draft: string) => Promise<void>): Promise<Written> {
  const started = performance.now();
  const path = resolve(destination);
  const folder = dirname(path);
  if (statOrUndefined(path)?.isDirectory()) {
    throw new BackupRefused(`${path} is a folder: give the path of a file in it (${join(path, 'circulation.db')})`);
  }
  const folderStats = statOrUndefined(folder);
  if (!folderStats) throw new BackupRefused(`the folder ${folder} does not exist`);
  if (!folderStats.isDirectory()) throw new BackupRefused(`${folder} is not a folder`);
  removeLeftovers(folder, (of) => of === basename(path));
  const draft = createDraft(path);
  try {
    await fill(draft);
    const { schemaVersion } = await checkSqliteCopy(draft);
    renameSync(draft, path);
    syncFolder(folder);
    return { path, bytes: statSync(path).size, ms: performance.now() - started, schemaVersion };
  } catch (error) {
    removeDraft(draft);
    if (error instanceof UnsoundCopy)
      throw new BackupRefused(`the copy failed its check (${error.message}); ${path} is as it was`);
    throw new BackupRefused(`could not copy the database to ${path}: ${reasonOf(error)}`, { cause: error });
  }
}

const DRAFT = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp(?:-journal|-wal|-shm)?$/;

/**
 * A draft beside `path`, made by this process: `.NAME.PID.RANDOM.tmp`, so that a later backup
 * can tell a draft whose process is gone from one still being written.
 */
export function createDraft(path: string): string {
  const draft = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    closeSync(openSync(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  } catch (error) {
    throw new BackupRefused(`cannot write in ${dirname(path)}: ${reasonOf(error)}`, { cause: error });
  }
  return draft;
}

/** Removes a draft and what SQLite may have made beside it. */
export function removeDraft(draft: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${draft}${suffix}`, { force: true });
}

/** Removes the drafts in `folder`, of files `belongs` names, whose process has ended. */
export function removeLeftovers(folder: string, belongs: (name: string) => boolean): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(folder)) {
    const match = DRAFT.exec(name);
    if (!match || !belongs(match[1] as string) || isRunning(Number(match[2]))) continue;
    rmSync(join(folder, name), { force: true });
    removed.push(name);
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** Makes a rename in `folder` durable: without it a power cut may undo it. */
export function syncFolder(folder: string): void {
  const fd = openSync(folder, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function statOrUndefined(path: string): Stats | undefined {
  return statSync(path, { throwIfNoEntry: false });
}

/** The operator's reason: what the database said, not the store's "not answering" around it. */
export function reasonOf(error: unknown): string {
  const cause = error instanceof StoreUnavailable ? error.cause : error;
  const { code, message } = (cause ?? {}) as { code?: string; message?: string };
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENOSPC' || code === 'SQLITE_FULL') return 'the disk is full';
  return message ?? String(cause);
}
