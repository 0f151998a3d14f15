/**
 * The rules of scheduled backups, pure: what a backup file is called (its UTC time, so that names
 * sort as times do), which go when there are more than are kept, and when the next one is due.
 */

const NAME = /^circulation-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.db$/;

/** The name of a backup made at `at`: `circulation-20250301T020000Z.db`. */
export function backupName(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(/[-:]/g, '');
  return `circulation-${stamp}.db`;
}

/** When the backup called `name` was made (epoch milliseconds); undefined for any other file. */
export function backupTime(name: string): number | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  const time = Date.UTC(year!, month! - 1, day, hour, minute, second);
  // A name that is no real time (month 13) is no backup of ours.
  return backupName(new Date(time)) === name ? time : undefined;
}

/** The backups among `names` beyond the newest `keep`, oldest first; other files are never among them. */
export function backupsBeyond(names: readonly string[], keep: number): string[] {
  const backups = names.filter((name) => backupTime(name) !== undefined).sort();
  return backups.slice(0, Math.max(0, backups.length - keep));
}

/**
 * How long from `now` until a backup is due: an interval after the newest among `names`, at once
 * when there is none or it is older than that. Counted from the files rather than from the start,
 * a process restarted more often than the interval still backs up.
 */
export function nextBackupIn(names: readonly string[], now: number, intervalMs: number): number {
  const newest = Math.max(...names.map((name) => backupTime(name) ?? Number.NEGATIVE_INFINITY));
  return Math.min(intervalMs, Math.max(0, newest + intervalMs - now));
}
