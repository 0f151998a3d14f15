/**
 * Scheduled backups, from a serving process on SQLite (BACKUP_DIR): one every
 * BACKUP_INTERVAL_MINUTES, counted from the newest backup in the folder, each written as
 * `circulation backup` writes one (copy.ts), then the oldest beyond BACKUP_KEEP removed. The copy
 * runs over the store's own connection a few pages at a time, with requests served in between,
 * and its check on a thread of its own: a backup holds up no request for more than a step.
 */
import { accessSync, constants, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Store } from '../store/port.js';
import { BackupRefused, POSTGRES_BACKUPS, reasonOf, removeLeftovers, writeBackup } from './copy.js';
import { backupName, backupsBeyond, backupTime, nextBackupIn } from './names.js';

export interface BackupSettings {
  /** BACKUP_DIR: where the backups go. */
  dir: string;
  /** BACKUP_INTERVAL_MINUTES. */
  intervalMinutes: number;
  /** BACKUP_KEEP: how many are kept. */
  keep: number;
}

/** The pages a backup copies in one step: a few milliseconds of copying; doubled when writes elsewhere restart it. */
const PAGES_PER_STEP = 128;

export interface Backups {
  /** Starts no more backups and ends the one under way (its draft removed); settles when it has. */
  stop(): Promise<void>;
}

/**
 * Starts the schedule; throws at once when the folder cannot be made or written, so that a
 * process that would make no backup does not start.
 */
export function startBackups(store: Store, settings: BackupSettings, log: Pick<Logger, 'info' | 'error'>): Backups {
  const copyInto = store.copyInto?.bind(store);
  if (!copyInto) throw new BackupRefused(`BACKUP_DIR ${POSTGRES_BACKUPS}`);
  const { dir, keep } = settings;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new BackupRefused(`BACKUP_DIR ${dir} cannot be made or written: ${reasonOf(error)}`, { cause: error });
  }
  const intervalMs = settings.intervalMinutes * 60_000;
  const ending = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const backUp = async () => {
    removeLeftovers(dir, (of) => backupTime(of) !== undefined);
    const written = await writeBackup(join(dir, backupName(new Date())), (draft) =>
      copyInto(draft, { pagesPerStep: PAGES_PER_STEP, signal: ending.signal }),
    );
    const removed = backupsBeyond(readdirSync(dir), keep);
    for (const name of removed) rmSync(join(dir, name), { force: true });
    log.info(
      { path: written.path, bytes: written.bytes, durationMs: Math.round(written.ms), removed },
      'backed up the database',
    );
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      running = backUp()
        .catch((error: unknown) => {
          if (!ending.signal.aborted) log.error({ err: error }, 'backup failed; trying again at the next interval');
        })
        .finally(() => {
          running = undefined;
          if (!ending.signal.aborted) schedule(intervalMs);
        });
    }, ms).unref();
  };
  schedule(nextBackupIn(readdirSync(dir), Date.now(), intervalMs));
  return {
    async stop() {
      ending.abort(new Error('the process is shutting down'));
      clearTimeout(timer);
      await running;
    },
  };
}
