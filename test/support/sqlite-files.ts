/**
 * Files for the tests of SQLite's own behaviour: each database in a temporary directory of its
 * own, removed when the test file's tests end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A path for a database file in a new temporary directory. */
export function freshDatabasePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'circulation-sqlite-test-'));
  tempDirs.push(dir);
  return join(dir, 'circulation.db');
}
